import { strict as assert } from 'node:assert'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LspServers, LspSession } from '../../src/core/lsp/index.js'
import { isProcessAlive } from '../../src/core/store/liveness.js'


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether the process is gone within a few seconds (a killed child lingers until it is reaped). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && isProcessAlive(pid); i++) await sleep(100)
  return !isProcessAlive(pid)
}

describe('kept language servers (LspServers)', function () {
  this.timeout(60_000)
  let dir: string
  let path: string | undefined
  let servers: LspServers | undefined

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-lsp-pool-'))
    path = process.env.PATH
  })
  afterEach(() => {
    servers?.close()
    process.env.PATH = path
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps a server that missed a deadline, kills it once silent a further timeout, starts it again once, then leaves it out', async () => {
    // A "language server" that reads its requests and never answers, and notes each start.
    const bin = join(dir, 'bin')
    const repo = join(dir, 'repo')
    const starts = join(dir, 'starts')
    mkdirSync(bin)
    mkdirSync(repo)
    writeFileSync(join(bin, 'typescript-language-server'), `#!${process.execPath}\nrequire('fs').appendFileSync(${JSON.stringify(starts)}, process.pid + '\\n')\nprocess.stdin.on('data', () => {})\nsetInterval(() => {}, 1000)\n`)
    chmodSync(join(bin, 'typescript-language-server'), 0o755)
    writeFileSync(join(repo, 'a.ts'), 'export const a = 1\n')
    process.env.PATH = `${bin}:${path}`
    servers = new LspServers(repo)
    const pids = (): number[] => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n').map(Number) : [])
    /** Node's start under load can outlast a deadline: wait for the fake server to note its start. */
    const started = async (count: number): Promise<void> => {
      for (let i = 0; i < 100 && pids().length < count; i++) await sleep(100)
    }
    const ask = async (): Promise<string[]> => {
      const warnings: string[] = []
      const session = new LspSession(servers!, { timeoutMs: 1000, warn: (message) => warnings.push(message) })
      try {
        assert.equal(await session.hover('a.ts', 'typescript', 1, 13), undefined)
      } finally {
        session.end()
      }
      return warnings
    }

    assert.deepEqual(await ask(), ['warning: typescript-language-server did not answer within 1000 ms; answering without it'])
    await started(1)
    const [first] = pids()
    // Right after its miss it may still be loading a project: kept.
    assert.deepEqual(await ask(), ['warning: typescript-language-server did not answer within 1000 ms; answering without it'])
    assert.deepEqual(pids(), [first])
    assert.ok(isProcessAlive(first!))
    // Silent for a further timeout since: hung, killed, started again.
    await sleep(1100)
    assert.deepEqual(await ask(), ['warning: typescript-language-server did not answer within 1000 ms; answering without it'])
    await started(2)
    assert.equal(pids().length, 2)
    assert.ok(await gone(first!), 'the hung server was left running')
    // Hung again: left out for good, no third start.
    await sleep(1100)
    const [left] = await ask()
    assert.match(left!, /^warning: typescript-language-server stopped answering \(silent for \d+ ms\), after being started again once; answering without it$/)
    assert.equal(pids().length, 2)
    assert.ok(await gone(pids()[1]!), 'the server left out was left running')
  })
})
