/**
 * A full or read-only `.vlt/` met by the write primitives, with the fault injected into node:fs:
 * this runs everywhere, including where test/reliability/readonly.test.ts cannot mount a real
 * read-only folder or small tmpfs (no user namespaces), and it pins the contract those primitives
 * give every caller: an EnvironmentFault naming the file being written (never its temp), the
 * target as it was, no temp file left behind.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import fsPromises from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { acquireLock, confineTo, EnvironmentFault, unlessUnwritable, writeFileAtomic, writeFileAtomicSync, writeRecordSync } from '../../src/core/store/index.js'

function errno(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall })
}

/** Runs `fn` with `object[name]` throwing `code`, as the kernel would; restores it however `fn` ends. */
async function failing<T>(object: object, name: string, code: string, fn: () => Promise<T> | T): Promise<T> {
  const target = object as Record<string, unknown>
  const original = target[name]
  target[name] = function () {
    throw errno(code, name)
  }
  // The primitives import these by name: their ESM bindings follow the patched object.
  syncBuiltinESMExports()
  try {
    return await fn()
  } finally {
    target[name] = original
    syncBuiltinESMExports()
  }
}

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (error) {
    return error
  }
  return assert.fail('the write succeeded')
}

describe('store/fault: writes into a full or read-only .vlt/', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-fault-'))
    confineTo(dir)
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('a synchronous write that meets ENOSPC: one fault naming the target, the target as it was, no temp file', async () => {
    const path = join(dir, 'state.mpk')
    writeRecordSync(path, 'state', 1, { tree: 'old' })
    const before = await readFile(path)
    const error = await caught(() => failing(fs, 'writeSync', 'ENOSPC', () => writeRecordSync(path, 'state', 1, { tree: 'new' })))
    assert.ok(error instanceof EnvironmentFault, String(error))
    assert.equal(error.message, `cannot write ${path}: no space left on device (ENOSPC)`)
    assert.equal(error.readOnly, false)
    assert.deepEqual(await readFile(path), before)
    assert.deepEqual(await readdir(dir), ['state.mpk'])
  })

  it('an asynchronous write that meets ENOSPC while writing: the same', async () => {
    const path = join(dir, 'manifest.mpk')
    await writeFile(path, 'old')
    const handle = await fsPromises.open(join(dir, 'probe'), 'w')
    const FileHandle = Object.getPrototypeOf(handle) as object
    await handle.close()
    await rm(join(dir, 'probe'))
    const error = await caught(() => failing(FileHandle, 'writeFile', 'ENOSPC', () => writeFileAtomic(path, Buffer.from('new'))))
    assert.ok(error instanceof EnvironmentFault, String(error))
    assert.equal(error.message, `cannot write ${path}: no space left on device (ENOSPC)`)
    assert.equal(await readFile(path, 'utf8'), 'old')
    assert.deepEqual(await readdir(dir), ['manifest.mpk'])
  })

  it('a read-only folder (EROFS at open): a read-only fault; a write the caller can do without is skipped', async () => {
    const path = join(dir, 'cache.mpk')
    const error = await caught(() => failing(fs, 'openSync', 'EROFS', () => writeFileAtomicSync(path, Buffer.from('x'))))
    assert.ok(error instanceof EnvironmentFault, String(error))
    assert.equal(error.message, `cannot write ${path}: read-only file system (EROFS)`)
    assert.equal(error.readOnly, true)
    assert.equal(await failing(fs, 'openSync', 'EROFS', () => unlessUnwritable(async () => writeFileAtomicSync(path, Buffer.from('x')))), undefined)
    // Anything else is not the environment's: it propagates.
    const other = await caught(() => failing(fs, 'openSync', 'EINVAL', () => unlessUnwritable(async () => writeFileAtomicSync(path, Buffer.from('x')))))
    assert.equal((other as NodeJS.ErrnoException).code, 'EINVAL')
    assert.deepEqual(await readdir(dir), [])
  })

  it('the lock on a full disk: a fault naming the lock, no temp file under locks/', async () => {
    await acquireLock(dir, { waitMs: 0 }).then((lock) => lock.release())
    const error = await caught(() => failing(fsPromises, 'writeFile', 'ENOSPC', () => acquireLock(dir, { waitMs: 0 })))
    assert.ok(error instanceof EnvironmentFault, String(error))
    assert.equal(error.message, `cannot write ${join(dir, 'locks', 'index.lock')}: no space left on device (ENOSPC)`)
    assert.deepEqual(await readdir(join(dir, 'locks')), [])
  })
})
