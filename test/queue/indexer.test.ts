import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  indexerLogPath,
  indexerRunning,
  indexerStatePath,
  launchIndexer,
  markIndexerFinished,
  markIndexerStarted,
  readIndexerState,
} from '../../src/core/queue/index.js'

describe('background indexer state and launch', () => {
  let vltDir: string
  beforeEach(() => {
    vltDir = mkdtempSync(join(tmpdir(), 'vlt-indexer-'))
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

  it('launches detached with output appended to the log, rotating a log past 1 MiB', async () => {
    const cli = join(vltDir, 'fake-cli.mjs')
    writeFileSync(cli, "console.log('args', process.argv.slice(2).join(' ')); console.error('cwd', process.cwd())\n")
    const log = indexerLogPath(vltDir)
    const pid = launchIndexer({ vltDir, cwd: vltDir, launcher: { node: process.execPath, cli } })
    assert.ok(pid > 0)
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline && !(existsSync(log) && readFileSync(log, 'utf8').split('\n').length === 3)) await sleep(20)
    assert.deepEqual(readFileSync(log, 'utf8').split('\n').sort(), ['', 'args coderag sync --queued', `cwd ${vltDir}`])

    writeFileSync(log, 'x'.repeat((1 << 20) + 1))
    launchIndexer({ vltDir, cwd: vltDir, launcher: { node: process.execPath, cli }, args: ['one'] })
    while (Date.now() < deadline && !(existsSync(log) && readFileSync(log, 'utf8').split('\n').length === 3)) await sleep(20)
    assert.equal(readFileSync(`${log}.1`, 'utf8').length, (1 << 20) + 1)
    assert.deepEqual(readFileSync(log, 'utf8').split('\n').sort(), ['', 'args one', `cwd ${vltDir}`])
  })

  it('fails loudly when the launcher cannot be started', () => {
    assert.throws(() => launchIndexer({ vltDir, cwd: vltDir, launcher: { node: '/nonexistent/node', cli: 'x' } }), /could not start/)
  })
})
