/**
 * Agent history at scale: ingest speed for ~100k transcript lines and search latency.
 *
 * Synthetic but shaped like real Claude Code transcripts: per exchange a human prompt, tool rounds
 * (thinking, text and tool_use lines sharing a message id, hook progress lines — about half of
 * all lines, as in real sessions — and tool results carrying file contents), a closing reply split
 * over two lines, file-history snapshots; one subagent transcript per ten sessions. Paths point
 * into a real git repository of 300 files so mentions resolve as they would.
 *
 * Figures: cold ingest (ms, lines/s, MB/s), a no-change ingest, an append of one exchange to 20
 * sessions, search p50/p95 in process on the loaded index, through queryHistory from disk without
 * and with the refresh check, and fileHistory.
 *
 * `node --import tsx bench/history-bench.ts [lines]` (default 100000), or through bench/run.ts as `run(args)`.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fileHistory, ingestHistory, queryHistory } from '../src/core/history/index.js'
import { projectDirName } from '../src/core/history/locate.js'
import { searchIndex } from '../src/core/history/search.js'
import { loadHistoryIndex } from '../src/core/history/store.js'

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'b@example.com' }
const LINES_PER_SESSION = 500

/** Deterministic PRNG (mulberry32) so every run ingests the same transcripts. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const random = prng(42)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ra', 'tu', 'vi', 'so', 'pe', 'du', 'gri', 'fan', 'mor', 'tel', 'bax', 'qui', 'zen', 'hol']
const COMMON = 'the a lock index search cache session token parser worker queue commit branch test fails error timeout retry config path file merge graph rank snapshot record stale ingest build query filter date exchange'.split(' ')
const VOCABULARY = [...COMMON, ...Array.from({ length: 3000 }, () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(SYLLABLES)).join(''))]
const DIRS = ['core', 'cli', 'search', 'store', 'git', 'graph', 'parse', 'query', 'llm', 'threads']
const FILES = Array.from({ length: 300 }, (_, i) => `src/${DIRS[i % DIRS.length]}/${pick(VOCABULARY)}-${i}.ts`)

function sentence(words: number): string {
  return Array.from({ length: words }, () => (random() < 0.35 ? pick(COMMON) : pick(VOCABULARY))).join(' ')
}

interface Writer {
  lines: string[]
  root: string
  sessionId: string
  agentId?: string
  time: number
  n: number
}

function push(w: Writer, type: string, extra: object): void {
  w.time += 1000 + Math.floor(random() * 4000)
  w.lines.push(JSON.stringify({
    parentUuid: w.n ? `u${w.n - 1}` : null, isSidechain: w.agentId !== undefined, userType: 'external', cwd: w.root, sessionId: w.sessionId,
    version: '2.1.12', gitBranch: random() < 0.8 ? 'main' : 'feature/x', ...(w.agentId ? { agentId: w.agentId } : {}),
    type, uuid: `u${w.n++}`, timestamp: new Date(w.time).toISOString(), ...extra,
  }))
}

function exchange(w: Writer): void {
  const file = pick(FILES)
  push(w, 'user', { message: { role: 'user', content: `${sentence(12 + Math.floor(random() * 20))} in ${file}` } })
  const rounds = 1 + Math.floor(random() * 5)
  for (let r = 0; r < rounds; r++) {
    const id = `msg_${w.n}`
    const target = pick(FILES)
    const tool = pick(['Read', 'Edit', 'Bash', 'Grep'])
    const input = tool === 'Read' ? { file_path: `${w.root}/${target}` }
      : tool === 'Edit' ? { file_path: `${w.root}/${target}`, old_string: sentence(8), new_string: sentence(10) }
        : tool === 'Bash' ? { command: `npx mocha ${target.replace('src/', 'test/')} && git diff ${target}`, description: sentence(5) }
          : { pattern: pick(VOCABULARY), path: `${w.root}/src/${pick(DIRS)}` }
    const message = (block: object) => ({ requestId: `req_${id}`, message: { id, type: 'message', role: 'assistant', model: 'claude-opus-4-5-20251101', content: [block], usage: { input_tokens: 4, output_tokens: 120 } } })
    push(w, 'assistant', message({ type: 'thinking', thinking: sentence(40), signature: 'EqQBCkYIBRgCKkB' }))
    push(w, 'assistant', message({ type: 'text', text: sentence(20) }))
    push(w, 'assistant', message({ type: 'tool_use', id: `toolu_${w.n}`, name: tool, input }))
    const toolId = `toolu_${w.n - 1}`
    for (let p = 0; p < 3; p++) push(w, 'progress', { data: { type: 'hook_progress', hookEvent: 'PostToolUse' }, toolUseID: toolId })
    const content = Array.from({ length: 30 }, (_, k) => `${String(k + 1).padStart(6)}\t${sentence(8)}`).join('\n')
    push(w, 'user', { message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content, is_error: random() < 0.05 }] } })
    push(w, 'file-history-snapshot', { snapshot: { trackedFileBackups: {} } })
  }
  const id = `msg_${w.n}`
  for (const text of [sentence(30), `Changed ${file}: ${sentence(25)}`]) {
    push(w, 'assistant', { requestId: `req_${id}`, message: { id, type: 'message', role: 'assistant', model: 'claude-opus-4-5-20251101', content: [{ type: 'text', text }] } })
  }
}

function generate(configDir: string, root: string, totalLines: number): { lines: number; bytes: number; sessions: number } {
  const project = join(configDir, 'projects', projectDirName(root))
  mkdirSync(project, { recursive: true })
  let lines = 0
  let bytes = 0
  let sessions = 0
  while (lines < totalLines) {
    const sessionId = `00000000-0000-4000-8000-${String(sessions).padStart(12, '0')}`
    const w: Writer = { lines: [], root, sessionId, time: Date.UTC(2025, 0, 1) + sessions * 3_600_000, n: 0 }
    while (w.lines.length < LINES_PER_SESSION && lines + w.lines.length < totalLines) exchange(w)
    const text = `${w.lines.join('\n')}\n`
    writeFileSync(join(project, `${sessionId}.jsonl`), text)
    lines += w.lines.length
    bytes += Buffer.byteLength(text)
    if (sessions % 10 === 0 && lines < totalLines) {
      const agent: Writer = { lines: [], root, sessionId, agentId: `a${sessions}`, time: w.time, n: 0 }
      for (let k = 0; k < 5; k++) exchange(agent)
      const agentText = `${agent.lines.join('\n')}\n`
      mkdirSync(join(project, sessionId, 'subagents'), { recursive: true })
      writeFileSync(join(project, sessionId, 'subagents', `agent-a${sessions}.jsonl`), agentText)
      lines += agent.lines.length
      bytes += Buffer.byteLength(agentText)
    }
    sessions++
  }
  return { lines, bytes, sessions }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 100) / 100
}

async function timeEach(queries: string[], fn: (query: string) => unknown): Promise<{ p50: number; p95: number }> {
  const times: number[] = []
  for (const query of queries) {
    const start = performance.now()
    await fn(query)
    times.push(performance.now() - start)
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) }
}

export async function run(args: string[]): Promise<unknown> {
  const totalLines = Number(args[0] ?? 100_000)
  const root = execFileSync('realpath', [mkdtempSync(join(tmpdir(), 'vlt-history-bench-'))], { encoding: 'utf8' }).trim()
  const configDir = mkdtempSync(join(tmpdir(), 'vlt-history-claude-'))
  try {
    for (const file of FILES) {
      mkdirSync(dirname(join(root, file)), { recursive: true })
      writeFileSync(join(root, file), `export const x = 1\n`)
    }
    const git = (...gitArgs: string[]) => execFileSync('git', gitArgs, { cwd: root, env: GIT_ENV, stdio: 'ignore' })
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git('commit', '-q', '-m', 'files')
    const corpus = generate(configDir, root, totalLines)

    const cold = await ingestHistory(root, { configDir })
    const noChange = await ingestHistory(root, { configDir })
    const project = join(configDir, 'projects', projectDirName(root))
    for (let s = 0; s < 20; s++) {
      const sessionId = `00000000-0000-4000-8000-${String(s).padStart(12, '0')}`
      const w: Writer = { lines: [], root, sessionId, time: Date.UTC(2025, 6, 1), n: 100_000 }
      exchange(w)
      appendFileSync(join(project, `${sessionId}.jsonl`), `${w.lines.join('\n')}\n`)
    }
    const append = await ingestHistory(root, { configDir })

    const queries = Array.from({ length: 100 }, () => `${pick(COMMON)} ${pick(VOCABULARY)} ${pick(VOCABULARY)}`)
    const loadStart = performance.now()
    const index = (await loadHistoryIndex(join(root, '.vlt')))!
    const loadMs = Math.round(performance.now() - loadStart)
    const inProcess = await timeEach(queries, (query) => searchIndex(index, query, { limit: 10 }))
    const filtered = await timeEach(queries, (query) => searchIndex(index, query, { limit: 10, branch: 'feature/x', after: '2025-01-03' }))
    const fromDisk = await timeEach(queries.slice(0, 30), (query) => queryHistory(root, query, { configDir, refresh: false }))
    const refreshed = await timeEach(queries.slice(0, 30), (query) => queryHistory(root, query, { configDir }))
    const files = await timeEach(FILES.slice(0, 30), (file) => fileHistory(root, file, { configDir, refresh: false }))

    return {
      corpus: { ...corpus, megabytes: Math.round(corpus.bytes / 1e5) / 10, exchanges: cold.exchanges, transcripts: cold.transcripts },
      ingest: {
        coldMs: cold.durationMs,
        linesPerSecond: Math.round(cold.lines / (cold.durationMs / 1000)),
        megabytesPerSecond: Math.round(corpus.bytes / 1e6 / (cold.durationMs / 1000)),
        noChangeMs: noChange.durationMs,
        append20ExchangesMs: append.durationMs,
        appendNewExchanges: append.newExchanges,
        indexBytes: statSync(join(root, '.vlt', 'history', 'index.mpk')).size,
      },
      search: {
        indexLoadMs: loadMs,
        inProcess,
        inProcessFiltered: filtered,
        queryHistoryNoRefresh: fromDisk,
        queryHistoryWithRefresh: refreshed,
        fileHistoryNoRefresh: files,
      },
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
    rmSync(configDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await run(process.argv.slice(2)), null, 2)}\n`)
}
