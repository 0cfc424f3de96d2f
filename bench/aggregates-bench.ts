/**
 * Tree aggregates (BM25 + symbol table + code graph) on real data: the blob records of an index
 * already built over 10,000 Linux kernel .c files (bench/.work/linux10k, made by bench/index-bench.ts).
 * Summaries are loaded first, untimed; then a cold build (addFile ×10k, finish, save), a load, and
 * a one-file incremental build (load, removeFile + addFile, finish, save) are timed.
 *
 *   node --expose-gc --import tsx bench/aggregates-bench.ts [.vlt dir]
 *   STREAMED=1 node --expose-gc --import tsx bench/aggregates-bench.ts   (see loadSummaries)
 *
 * Memory is heap plus array buffers (typed arrays live outside the JS heap), measured after each
 * phase without collecting, and again retained after a full GC.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAggregates, loadAggregates, saveAggregates, type IndexedSummary } from '../src/core/index/aggregates.js'
import { BlobStore } from '../src/core/index/blob-store.js'
import { summarize, type BlobRecord } from '../src/core/index/blob-task.js'
import { MANIFEST_KIND, type ManifestFile } from '../src/core/index/manifest.js'
import { decodeRecord, vltPaths } from '../src/core/store/index.js'

const VLT = process.argv[2] ?? join(import.meta.dirname, '.work/linux10k/.vlt')
/** The file the incremental build swaps for another file's content, as an edit would. */
const PATCHED = 4321
const STREAMED = process.env.STREAMED === '1'

/**
 * The indexed files' summaries, from their records in the blob store (loose or packed), read up
 * front and untimed. `held` (the default) builds every summary first; `streamed` builds each when
 * it is added, as init does with what workers send.
 */
function loadSummaries(): { paths: string[]; summaryOf: (f: number) => IndexedSummary; decodeMs: () => number } {
  const layout = vltPaths(VLT)
  const tree = readdirSync(layout.trees).sort()[0]
  if (!tree) throw new Error(`no indexed tree under ${layout.trees}`)
  // Only the file list is needed, which every manifest version has: read it at the version it was written.
  const bytes = readFileSync(layout.treeManifest(tree))
  const version = bytes.readUInt32LE(5 + bytes[4]!)
  const manifest = decodeRecord<{ extractorVersion: number; files: ManifestFile[] }>(bytes, MANIFEST_KIND, version, layout.treeManifest(tree))
  const blobs = new BlobStore(layout)
  const paths: string[] = []
  const records: BlobRecord[] = []
  for (const file of manifest.files) {
    if (file.skipped) continue
    const record = blobs.read({ blob: file.blob, language: file.language })
    if (!record) throw new Error(`no record for ${file.path}`)
    paths.push(file.path)
    records.push(record)
  }
  let decodeMs = 0
  const decode = (f: number): IndexedSummary => {
    const t0 = performance.now()
    const summary = summarize(records[f]!)
    decodeMs += performance.now() - t0
    if (summary.skipped) throw new Error(`${paths[f]} was indexed but its record says skipped`)
    return summary
  }
  if (STREAMED) return { paths, summaryOf: decode, decodeMs: () => Math.round(decodeMs) }
  const summaries = paths.map((_, f) => decode(f))
  records.length = 0
  return { paths, summaryOf: (f) => summaries[f]!, decodeMs: () => 0 }
}

const mb = (bytes: number): number => Math.round(bytes / 1e6)
const ms = (t0: number): number => Math.round(performance.now() - t0)
const memory = (): number => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}
const collect = (): void => {
  if (!global.gc) throw new Error('run with node --expose-gc')
  global.gc()
  global.gc()
}

function dirSize(dir: string): Record<string, number> {
  const out: Record<string, number> = {}
  let total = 0
  for (const name of readdirSync(dir)) {
    const size = statSync(join(dir, name)).size
    out[name] = mb(size)
    total += size
  }
  return { ...out, total: Math.round(total / 1e5) / 10 }
}

async function main(): Promise<void> {
  let t0 = performance.now()
  const { paths, summaryOf, decodeMs } = loadSummaries()
  const files = paths.length
  process.stdout.write(`loaded ${files} ${STREAMED ? 'records' : 'summaries'} in ${ms(t0)} ms\n`)
  collect()
  const before = memory()
  const phases: Record<string, number> = {}

  t0 = performance.now()
  const aggregates = createAggregates()
  for (let f = 0; f < files; f++) aggregates.addFile(paths[f]!, summaryOf(f))
  const addMs = ms(t0) - decodeMs()
  phases.afterAdd = mb(memory() - before)
  t0 = performance.now()
  aggregates.finish()
  const finishMs = ms(t0)
  const { edges } = aggregates.stats()
  phases.afterFinish = mb(memory() - before)
  const dir = mkdtempSync(join(tmpdir(), 'vlt-aggregates-bench-'))
  const cold = join(dir, 'cold')
  t0 = performance.now()
  await saveAggregates(cold, aggregates)
  const saveMs = ms(t0)
  phases.afterSave = mb(memory() - before)
  collect()
  phases.retained = mb(memory() - before)
  const stats = aggregates.stats()

  t0 = performance.now()
  const loaded = await loadAggregates(cold)
  const loadMs = ms(t0)
  const target = PATCHED % paths.length
  const replacement = summaryOf((target + 1) % files)
  t0 = performance.now()
  loaded.removeFile(paths[target]!)
  loaded.addFile(paths[target]!, replacement)
  const patchMs = ms(t0)
  t0 = performance.now()
  loaded.finish()
  const patchFinishMs = ms(t0)
  t0 = performance.now()
  await saveAggregates(join(dir, 'patched'), loaded)
  const patchSaveMs = ms(t0)

  t0 = performance.now()
  aggregates.graph.personalizedPageRank(new Map([[`f:${paths[0]}`, 1]]))
  const personalizedMs = ms(t0)
  const sizes = dirSize(cold)
  rmSync(dir, { recursive: true, force: true })

  const figures = {
    files, summaries: STREAMED ? 'streamed' : 'held', ...stats, edges,
    cold: { addMs, finishMs, saveMs, totalMs: addMs + finishMs + saveMs, memoryGrowthMb: phases },
    fileSizesMb: sizes,
    incremental: { loadMs, patchMs, finishMs: patchFinishMs, saveMs: patchSaveMs, totalMs: loadMs + patchMs + patchFinishMs + patchSaveMs },
    personalizedPageRankMs: personalizedMs,
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  }
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
}

await main()
