import { strict as assert } from 'node:assert'
import { spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { acquireLock, LockBusyError } from '../../src/core/store/index.js'
import { spawnFixture, waitForLine } from './fixtures.js'

describe('lock: announcing a wait', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lock-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** Holds the lock for `holdMs` while another acquirer waits; returns how often that one was told. */
  async function waitBehind(holdMs: number, notifyAfterMs: number): Promise<string[]> {
    const held = await acquireLock(dir)
    const told: string[] = []
    const waiting = acquireLock(dir, { notifyAfterMs, onWait: (description) => told.push(description) })
    await sleep(holdMs)
    held.release()
    ;(await waiting).release()
    return told
  }

  it('stays silent about a wait shorter than notifyAfterMs, and speaks once about a longer one', async () => {
    assert.deepEqual(await waitBehind(150, 1_000), [])
    const told = await waitBehind(1_300, 1_000)
    assert.equal(told.length, 1)
    assert.match(told[0]!, new RegExp(`pid ${process.pid}`))
    assert.equal((await waitBehind(150, 0)).length, 1, 'by default at once')
  })
})

describe('lock: a holder that will not let go', () => {
  let dir: string
  let holder: ChildProcessWithoutNullStreams | undefined
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lock-'))
  })
  afterEach(async () => {
    if (holder && holder.exitCode === null && holder.signalCode === null) {
      holder.kill('SIGKILL')
      await once(holder, 'exit')
    }
    holder = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  async function holdInAnotherProcess(): Promise<number> {
    holder = spawnFixture('lock-holder', [dir, '60000'])
    return Number((await waitForLine(holder, /^acquired \d+$/)).split(' ')[1])
  }

  it('a live holder is waited for waitMs, then named: pid, command, since when', async () => {
    const pid = await holdInAnotherProcess()
    const started = Date.now()
    const error = await acquireLock(dir, { waitMs: 400 }).then(
      () => assert.fail('acquired a held lock'),
      (caught: unknown) => caught,
    )
    const waited = Date.now() - started
    assert.ok(error instanceof LockBusyError, String(error))
    assert.equal(error.stopped, false)
    assert.ok(waited >= 400 && waited < 3_000, `waited ${waited} ms`)
    assert.match(error.message, new RegExp(`held by pid ${pid} \\(lock-holder\\.ts .*\\) since \\d{4}-\\d\\d-\\d\\dT.*; gave up after waiting 0\\.4 s`))
  })

  it('a stopped holder (SIGSTOP) is not waited for: the acquirer gives up at once and says how to resume it', async () => {
    const pid = await holdInAnotherProcess()
    process.kill(pid, 'SIGSTOP')
    try {
      const started = Date.now()
      const error = await acquireLock(dir, { waitMs: 30_000 }).then(
        () => assert.fail('acquired a held lock'),
        (caught: unknown) => caught,
      )
      assert.ok(Date.now() - started < 2_000, `gave up after ${Date.now() - started} ms`)
      assert.ok(error instanceof LockBusyError, String(error))
      assert.equal(error.stopped, true)
      assert.match(error.message, new RegExp(`held by pid ${pid} .*which is stopped .*kill -CONT ${pid}`))
    } finally {
      process.kill(pid, 'SIGCONT')
    }
  })
})

describe('lock: a holder ended by a signal', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lock-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a holder ended by ${signal} releases the lock, and the next holder is told to clear what it left (recovered), once`, async () => {
      const holder = spawnFixture('lock-holder', [dir, '60000'])
      await waitForLine(holder, /^acquired \d+$/)
      holder.kill(signal)
      await once(holder, 'exit')
      assert.equal(existsSync(join(dir, 'locks', 'index.lock')), false, 'the lock is released on the way out')
      const next = await acquireLock(dir, { waitMs: 0 })
      next.release()
      assert.equal(next.recovered, true, 'the next holder is not told the last one was interrupted')
      const after = await acquireLock(dir, { waitMs: 0 })
      after.release()
      assert.equal(after.recovered, false, 'told again')
    })
  }

  it('a holder that releases its lock leaves no mark', async () => {
    const holder = spawnFixture('lock-holder', [dir, '10'])
    await waitForLine(holder, /^acquired \d+$/)
    await once(holder, 'exit')
    const next = await acquireLock(dir, { waitMs: 0 })
    next.release()
    assert.equal(next.recovered, false)
  })
})

describe('lock: what a killed acquirer leaves', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lock-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('the temp file of an acquirer killed before it linked the lock is removed by the next acquirer; a live one is left', async () => {
    // A process that has exited: its pid is dead (and not reused within this test).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    const locks = join(dir, 'locks')
    mkdirSync(locks)
    const abandoned = join(locks, `index.lock.${dead.stdout}-0-0badc0de.vlt-tmp`)
    const inFlight = join(locks, `index.lock.${process.pid}-7-0badc0de.vlt-tmp`)
    for (const temp of [abandoned, inFlight]) writeFileSync(temp, '{}')
    const lock = await acquireLock(dir, { waitMs: 0 })
    lock.release()
    assert.equal(existsSync(abandoned), false, 'the killed acquirer\'s temp file is still there')
    assert.equal(existsSync(inFlight), true, 'a live acquirer\'s temp file was removed')
  })
})
