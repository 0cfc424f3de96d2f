/**
 * BM25 index figures on the Linux corpus (bench/bm25-corpus.ts): analysis throughput, build,
 * snapshot + msgpackr round trip, one-file patch, query latency, memory, and how often an exact
 * identifier query ranks its definition first.
 *
 *   npx tsx bench/bm25.ts            (or `run()` from bench/run.ts)
 */
import { pack, unpack } from 'msgpackr'
import { pathToFileURL } from 'node:url'
import { Bm25Index } from '../src/core/search/index.js'
import { linuxDocs, linuxFiles, type AnalyzedFile } from './bm25-corpus.js'

export const PROSE_QUERIES = [
  'parse device tree property', 'interrupt handler for gpio', 'allocate dma buffer', 'set clock rate',
  'suspend and resume power management', 'read register value', 'memory barrier', 'page table entry',
  'initialize pci device', 'usb endpoint descriptor', 'crc32 checksum', 'timer callback expired',
  'receive network packet', 'firmware load failed', 'i2c transfer', 'acpi table parsing',
  'cpu hotplug', 'spin lock irq save', 'copy from user', 'kernel module init',
]

/** Every 500th chunk that looks like a C function definition: its name is the query. */
export function definitionQueries(): Array<{ name: string; path: string; chunkIndex: number }> {
  const out: Array<{ name: string; path: string; chunkIndex: number }> = []
  let seen = 0
  for (const file of linuxFiles()) {
    file.chunks.forEach((chunk, chunkIndex) => {
      if (chunk.kind === 'function' && chunk.name.length > 6 && seen++ % 500 === 0) out.push({ name: chunk.name, path: file.path, chunkIndex })
    })
  }
  return out
}

function percentile(values: number[], p: number): number {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function mb(bytes: number): number {
  return Math.round(bytes / 1e5) / 10
}

const round = (ms: number): number => Math.round(ms * 10) / 10

export function buildIndex(files: AnalyzedFile[]): Bm25Index {
  const index = new Bm25Index()
  for (const file of files) index.addFile(file.path, file.chunks)
  index.snapshot()
  return index
}

export async function run(): Promise<unknown> {
  const corpus = linuxDocs()
  const { files } = corpus
  global.gc?.()
  const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers

  let t0 = performance.now()
  const index = new Bm25Index()
  for (const file of files) index.addFile(file.path, file.chunks)
  const addMs = performance.now() - t0
  t0 = performance.now()
  let snapshot = index.snapshot()
  const sealMs = performance.now() - t0
  global.gc?.()
  const indexBytes = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore

  t0 = performance.now()
  snapshot = index.snapshot()
  const snapshotMs = performance.now() - t0
  t0 = performance.now()
  const packed = pack(snapshot)
  const packMs = performance.now() - t0
  t0 = performance.now()
  const unpacked = unpack(packed)
  const unpackMs = performance.now() - t0
  t0 = performance.now()
  const loaded = Bm25Index.fromSnapshot(unpacked)
  const loadMs = performance.now() - t0

  // One-file patch on the loaded index, then its snapshot (seals into the tail).
  const patchTimes: number[] = []
  const sealTimes: number[] = []
  for (let k = 0; k < 20; k++) {
    const file = files[(k * 487) % files.length]
    t0 = performance.now()
    loaded.removeFile(file.path)
    loaded.addFile(file.path, file.chunks)
    patchTimes.push(performance.now() - t0)
    t0 = performance.now()
    loaded.snapshot()
    sealTimes.push(performance.now() - t0)
  }

  const definitions = definitionQueries()
  const queries = [...PROSE_QUERIES, ...definitions.map((d) => d.name)]
  for (const q of queries) loaded.search(q, { limit: 10 })
  const latencies: number[] = []
  for (let rep = 0; rep < 3; rep++) {
    for (const q of queries) {
      t0 = performance.now()
      loaded.search(q, { limit: 10 })
      latencies.push(performance.now() - t0)
    }
  }
  let definitionFirst = 0
  let definitionTop10 = 0
  for (const d of definitions) {
    const hits = loaded.search(d.name, { limit: 10 })
    const rank = hits.findIndex((h) => h.path === d.path && h.chunkIndex === d.chunkIndex)
    if (rank === 0) definitionFirst++
    if (rank >= 0) definitionTop10++
  }

  global.gc?.()
  return {
    corpus: { files: files.length, chunks: corpus.chunks, postings: files.reduce((n, f) => n + f.chunks.docs.reduce((m, d) => m + d.tfs.length, 0), 0) },
    analyze: corpus.analyzeMs === undefined ? 'cached (delete bench/.work/bm25-linux10000.mpk to measure)' : { ms: Math.round(corpus.analyzeMs), mbPerSec: round(corpus.bytes / 1e3 / corpus.analyzeMs) },
    build: { addFilesMs: Math.round(addMs), sealMs: Math.round(sealMs), totalMs: Math.round(addMs + sealMs) },
    memory: { indexMB: mb(indexBytes), rssMB: mb(process.memoryUsage().rss) },
    snapshot: {
      packedMB: mb(packed.length),
      snapshotMs: round(snapshotMs), packMs: round(packMs), unpackMs: round(unpackMs), fromSnapshotMs: round(loadMs),
      totalMs: round(snapshotMs + packMs + unpackMs + loadMs),
    },
    patch: { removeAddP50Ms: round(percentile(patchTimes, 50)), removeAddMaxMs: round(Math.max(...patchTimes)), snapshotAfterPatchP50Ms: round(percentile(sealTimes, 50)), snapshotAfterPatchMaxMs: round(Math.max(...sealTimes)) },
    query: { count: latencies.length, p50Ms: round(percentile(latencies, 50)), p95Ms: round(percentile(latencies, 95)), maxMs: round(Math.max(...latencies)) },
    ranking: { identifierQueries: definitions.length, definitionFirst, definitionInTop10: definitionTop10 },
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`)
}
