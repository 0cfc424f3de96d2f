/**
 * Issue 3's repo-map target: a map over 5k files in ≤ 1 s, warm (in process), cold (the built
 * CLI in a child process answering in process: Node start-up and index loading included) and
 * served (the same CLI answered by the repository's daemon, which a CLI query starts). Measured
 * on Linux 10k: the whole tree, and `drivers/` (5,243 files) as the 5k-file scope; plus a focus
 * map, which runs a personalised PageRank. `--corpus=linux` measures the whole Linux tree instead.
 *
 * On a graph past EXACT_RANKS_NODES (both corpora) a scoped or focused map pushes that PageRank
 * out from its files over the stored out-edges (CodeGraph.localPersonalizedRanks): each such case
 * is also mapped exactly — the table and graph loaded whole and ranked by power iteration — and
 * the two maps compared line by line.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openQueryContext } from '../src/core/query/context.js'
import { buildRepoMap, type RepoMapOptions } from '../src/core/repomap/index.js'
import { corpus } from './corpus.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'bin', 'run.js')
const RUNS = 5

const median = (xs: number[]): number => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1)

function timeMs<T>(fn: () => T): { ms: number; value: T } {
  const started = performance.now()
  const value = fn()
  return { ms: performance.now() - started, value }
}

/** `served`: answered by the repository's daemon when one runs; else always in the CLI's own process. */
function cliMs(dir: string, args: string[], served = false): number {
  const env = { ...process.env, CI: '1', GIT_VLT_DAEMON: served ? '1' : '0' }
  const started = performance.now()
  const child = spawnSync(process.execPath, [CLI, 'coderag', 'map', ...args, '--json'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26, env })
  const ms = performance.now() - started
  if (child.status !== 0) throw new Error(`git vlt coderag map ${args.join(' ')} failed (${child.status}): ${child.stderr}`)
  return ms
}

export async function run(args: string[]): Promise<unknown> {
  if (!existsSync(join(ROOT, 'dist', 'commands', 'coderag', 'map.js'))) throw new Error('build the CLI first: npx tsc -p tsconfig.json && npx oclif manifest')
  const corpusName = args.find((arg) => arg.startsWith('--corpus='))?.slice('--corpus='.length) === 'linux' ? 'linux' : 'linux10k'
  args = args.filter((arg) => !arg.startsWith('--corpus='))
  const dir = corpus(corpusName)
  // Bring the index up to date once, so the runs below measure the map and not a sync; then
  // start the daemon (a query answered in process launches it) and wait until it answers.
  cliMs(dir, ['--tokens', '1'])
  cliMs(dir, ['--tokens', '1'], true)
  cliMs(dir, ['--tokens', '1'], true)

  const cases: Array<{ name: string; options: RepoMapOptions; cli: string[] }> = [
    { name: 'whole tree', options: {}, cli: [] },
    { name: 'drivers/', options: { scope: 'drivers' }, cli: ['drivers'] },
    { name: 'whole tree, 4096 tokens', options: { tokens: 4096 }, cli: ['--tokens', '4096'] },
    { name: 'focus kmalloc + a file', options: { focus: ['kmalloc', 'drivers/base/core.c'] }, cli: ['--focus', 'kmalloc', '--focus', 'drivers/base/core.c'] },
  ]
  const selected = args.length ? cases.filter((c) => args.some((a) => c.name.includes(a))) : cases
  const opening = performance.now()
  const qctx = await openQueryContext(dir, { warn: () => {}, noSync: true })
  const openMs = performance.now() - opening
  // The exact ranking, for the personalised cases: the graph (and with it the table) loaded whole, once, if any is run.
  let exactCtx: Awaited<ReturnType<typeof openQueryContext>> | undefined
  let exactLoadMs: number | undefined
  const results = []
  for (const c of selected) {
    const first = timeMs(() => buildRepoMap(qctx, c.options))
    const personalised = c.options.scope !== undefined || c.options.focus !== undefined
    if (personalised && !exactCtx) {
      const opened = await openQueryContext(dir, { warn: () => {}, noSync: true })
      exactLoadMs = +timeMs(() => opened.aggregates.graph.load()).ms.toFixed(1)
      exactCtx = opened
    }
    const exact = personalised ? timeMs(() => buildRepoMap(exactCtx!, c.options)) : undefined
    const exactLines = new Set(exact?.value.map.split('\n'))
    const lines = first.value.map.split('\n')
    const warm = Array.from({ length: RUNS }, () => timeMs(() => buildRepoMap(qctx, c.options)).ms)
    const cold = Array.from({ length: RUNS }, () => cliMs(dir, c.cli))
    const served = Array.from({ length: RUNS }, () => cliMs(dir, c.cli, true))
    results.push({
      case: c.name,
      tokens: first.value.tokens,
      files: first.value.files,
      symbolsIncluded: first.value.symbolsIncluded,
      symbolsTotal: first.value.symbolsTotal,
      firstInProcessMs: +first.ms.toFixed(1),
      warmInProcessMsMedian: median(warm),
      coldCliMsMedian: median(cold),
      servedCliMsMedian: median(served),
      targetMs: 1000,
      ...(exact && {
        exact: {
          inProcessMs: +exact.ms.toFixed(1),
          identical: exact.value.map === first.value.map,
          linesShared: lines.filter((line) => exactLines.has(line)).length,
          lines: lines.length,
          exactLines: exactLines.size,
        },
      }),
    })
  }
  const nodeStart = Array.from({ length: RUNS }, () => {
    const started = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    return performance.now() - started
  })
  return { corpus: corpusName, openQueryContextMs: +openMs.toFixed(1), exactLoadMs, nodeStartMsMedian: median(nodeStart), results }
}

/** bench/results/repomap.json for Linux 10k (the default), repomap-linux.json for the whole tree. */
export function resultName(args: string[]): string {
  return args.includes('--corpus=linux') ? 'repomap-linux' : 'repomap'
}
