/**
 * Tree aggregates (BM25 + symbol table + code graph) at Linux scale, on synthetic summaries shaped
 * like 10,000 kernel .c files: 20 definitions and ~300 reference occurrences per file (≈200k
 * definitions, 3M occurrences), mostly to same-file statics, some to globally unique functions,
 * some to generic names defined in hundreds of files; 15 includes each. Prints the timings of a
 * cold build (addFile ×10k, finish, save), a load, and a one-file incremental build.
 *
 *   npx tsx bench/aggregates-bench.ts [files]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAggregates, loadAggregates, saveAggregates, type IndexedSummary } from '../src/core/index/aggregates.js'
import type { Chunk, ImportRef, SymbolDef, SymbolRef } from '../src/core/parse/types.js'
import { analyzeChunks } from '../src/core/search/index.js'

const FILES = Number(process.argv[2] ?? 10_000)
const DEFS = 20
const REFS = 300
const GENERIC = ['init', 'probe', 'remove', 'read', 'write', 'open', 'release', 'show', 'store', 'name', 'dev', 'data', 'priv', 'ops', 'lock']

/** Deterministic pseudo-random numbers (xorshift), so runs are comparable. */
let seed = 0x9e3779b9
function random(n: number): number {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) % n
}

function pathOf(f: number): string {
  return `drivers/sub${f % 97}/dir${f % 13}/file${f}.c`
}

function summaryOf(f: number, variant = 0): IndexedSummary {
  const names = Array.from({ length: DEFS }, (_, d) => (d < 2 ? GENERIC[(f + d) % GENERIC.length]! : `f${f}_fn${d}${variant ? `_v${variant}` : ''}`))
  const symbols: SymbolDef[] = names.map((name, d) => ({
    name, qualifiedName: name, kind: 'function', line: d * 25 + 1, endLine: d * 25 + 24, column: 4, signature: `static int ${name}(struct device *dev, unsigned long flags)`, scope: '',
  }))
  const references: SymbolRef[] = []
  for (let r = 0; r < REFS; r++) {
    const roll = random(100)
    const name = roll < 60 ? names[random(DEFS)]! : roll < 85 ? `f${random(FILES)}_fn${2 + random(DEFS - 2)}` : roll < 95 ? GENERIC[random(GENERIC.length)]! : `extern_${random(5000)}`
    references.push({ name, line: r + 1, column: 8, kind: roll % 7 === 0 ? 'reference' : 'call', enclosing: names[Math.floor((r * DEFS) / REFS)]! })
  }
  const imports: ImportRef[] = Array.from({ length: 15 }, (_, i) => ({ module: i < 12 ? `linux/h${random(400)}.h` : `local${i}.h`, names: [], line: i + 1, relative: i >= 12 }))
  const chunks: Chunk[] = names.map((name, d) => ({
    kind: 'function', name, qualifiedName: name, language: 'c', startLine: d * 25 + 1, endLine: d * 25 + 24, imports: '', classContext: '',
    signature: symbols[d]!.signature, decorators: '', docstring: '',
    body: Array.from({ length: 12 }, () => `\tret = ${references[random(REFS)]!.name}(dev, flags & MASK_${random(50)});`).join('\n'), tokenCount: 150,
  }))
  return { language: 'c', chunkCount: chunks.length, parseErrors: 0, lineCount: DEFS * 25, analyzed: analyzeChunks(chunks), symbols, references, imports }
}

const mb = (bytes: number): number => Math.round(bytes / 1e6)
const ms = (t0: number): number => Math.round(performance.now() - t0)

async function main(): Promise<void> {
  let t0 = performance.now()
  const summaries = Array.from({ length: FILES }, (_, f) => summaryOf(f))
  const paths = summaries.map((_, f) => pathOf(f))
  process.stdout.write(`synthesised ${FILES} files in ${ms(t0)} ms\n`)
  global.gc?.()
  const rssBefore = process.memoryUsage().rss

  t0 = performance.now()
  const aggregates = createAggregates()
  for (let f = 0; f < FILES; f++) aggregates.addFile(paths[f]!, summaries[f]!)
  const addMs = ms(t0)
  t0 = performance.now()
  const { edges } = aggregates.finish()
  const finishMs = ms(t0)
  const dir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-bench-'))
  const cold = join(dir, 'cold')
  t0 = performance.now()
  await saveAggregates(cold, aggregates)
  const saveMs = ms(t0)
  const rssCold = process.memoryUsage().rss
  const stats = aggregates.stats()
  const sizes = Object.fromEntries(['bm25', 'symbols', 'graph'].map((name) => [name, mb(statSync(join(cold, `${name}.mpk`)).size)]))

  t0 = performance.now()
  const loaded = await loadAggregates(cold)
  const loadMs = ms(t0)
  t0 = performance.now()
  const target = 4321 % FILES
  loaded.removeFile(paths[target]!)
  loaded.addFile(paths[target]!, summaryOf(target, 1))
  const patchMs = ms(t0)
  t0 = performance.now()
  loaded.finish()
  const patchFinishMs = ms(t0)
  // Where a save's time goes: building the snapshots, then encoding and writing them.
  t0 = performance.now()
  const { remap } = loaded.symbols.snapshot()
  const symbolsSnapshotMs = ms(t0)
  t0 = performance.now()
  loaded.graph.snapshot(remap)
  const graphSnapshotMs = ms(t0)
  t0 = performance.now()
  loaded.bm25.snapshot()
  const bm25SealMs = ms(t0)
  t0 = performance.now()
  await saveAggregates(join(dir, 'patched'), loaded)
  const patchSaveMs = ms(t0)

  t0 = performance.now()
  const graph = aggregates.graph.toGraphology()
  const graphologyMs = ms(t0)
  const { default: graphologyPagerank } = await import('graphology-metrics/centrality/pagerank.js')
  t0 = performance.now()
  graphologyPagerank(graph, { getEdgeWeight: 'weight' })
  const graphologyPagerankMs = ms(t0)
  t0 = performance.now()
  aggregates.graph.personalizedPageRank(new Map([[`f:${paths[0]}`, 1]]))
  const personalizedMs = ms(t0)
  rmSync(dir, { recursive: true, force: true })

  const figures = {
    files: FILES, ...stats, edges,
    cold: { addMs, finishMs, saveMs, totalMs: addMs + finishMs + saveMs, rssDeltaMb: mb(rssCold - rssBefore) },
    fileSizesMb: sizes,
    incremental: { loadMs, patchMs, finishMs: patchFinishMs, saveMs: patchSaveMs, totalMs: loadMs + patchMs + patchFinishMs + patchSaveMs, saveParts: { symbolsSnapshotMs, graphSnapshotMs, bm25SealMs } },
    graphology: { buildMs: graphologyMs, pagerankMs: graphologyPagerankMs },
    personalizedPageRankMs: personalizedMs,
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  }
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
}

await main()
