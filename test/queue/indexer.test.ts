import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  indexerRunning,
  indexerStatePath,
  markIndexerFinished,
  markIndexerStarted,
  readIndexerState,
} from '../../src/core/queue/index.js'
import { confineTo } from '../../src/core/store/index.js'

describe('background indexer state', () => {
  let vltDir: string
  beforeEach(() => {
    vltDir = mkdtempSync(join(tmpdir(), 'vlt-indexer-'))
    confineTo(vltDir)
  })
  afterEach(() => rmSync(vltDir, { recursive: true, force: true }))

  it('records a run from start to failure to success, keeping the last error visible while running', async () => {
    assert.equal(await readIndexerState(vltDir), null)
    await markIndexerStarted(vltDir, new Date('2024-01-01T00:00:00Z'))
    const running = await readIndexerState(vltDir)
    assert.deepEqual(running, { pid: process.pid, startedAt: '2024-01-01T00:00:00.000Z', finishedAt: null, lastResult: null, lastError: null })
    assert.equal(indexerRunning(running), true)

    await markIndexerFinished(vltDir, new Error('tree-sitter exploded'), new Date('2024-01-01T00:00:05Z'))
    const failed = await readIndexerState(vltDir)
    assert.deepEqual(failed, { pid: process.pid, startedAt: '2024-01-01T00:00:00.000Z', finishedAt: '2024-01-01T00:00:05.000Z', lastResult: 'failed', lastError: 'tree-sitter exploded' })
    assert.equal(indexerRunning(failed), false)

    await markIndexerStarted(vltDir, new Date('2024-01-01T00:01:00Z'))
    assert.deepEqual((await readIndexerState(vltDir))!.lastError, 'tree-sitter exploded')
    await markIndexerFinished(vltDir, undefined, new Date('2024-01-01T00:01:01Z'))
    assert.deepEqual(await readIndexerState(vltDir), { pid: process.pid, startedAt: '2024-01-01T00:01:00.000Z', finishedAt: '2024-01-01T00:01:01.000Z', lastResult: 'ok', lastError: null })
  })

  it('writes the pid where a hook reads it with shell builtins', async () => {
    await markIndexerStarted(vltDir)
    const script = 'IFS= read -r state <"$1"; pid=${state#\\{\\"pid\\":}; echo "${pid%%[!0-9]*}"'
    const out = spawnSync('sh', ['-c', script, 'sh', indexerStatePath(vltDir)], { encoding: 'utf8' })
    assert.equal(out.stdout, `${process.pid}\n`)
  })

  it('treats an unreadable state as none and a killed indexer as not running', async () => {
    await markIndexerStarted(vltDir)
    writeFileSync(indexerStatePath(vltDir), '{"pid": tru')
    assert.equal(await readIndexerState(vltDir), null)
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
    assert.equal(indexerRunning({ pid: Number(dead.stdout), startedAt: 'x', finishedAt: null, lastResult: null, lastError: null }), false)
  })
})
