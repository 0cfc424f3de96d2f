/**
 * Vector index and cache figures for 200k × 1024-dimensional vectors (a large repository's chunks
 * under a mid-size embedding model): usearch build, query latency and recall in f32 and f16,
 * file size and save/load time, and the VectorCache write/read throughput.
 *
 *   node --import tsx bench/vectors-bench.ts [count=200000] [dimensions=1024]
 *
 * Uniform random vectors are the hard case for HNSW (no cluster structure to exploit), so recall
 * here is a lower bound. Two recall figures: recall@10 against exact search for random queries,
 * and top-1 for queries that are slightly perturbed copies of stored vectors (the realistic
 * "this chunk is clearly the answer" case).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { exactSearch, MetricKind, type BatchMatches } from 'usearch'
import { VectorCache } from '../src/core/embed/vector-cache.js'
import { VectorIndex, type Quantization, type VectorIndexEntry } from './vector-index.js'
import { chunkHash } from '../src/core/embed/text.js'
import { vltPaths } from '../src/core/store/index.js'

const QUERIES = 200

export async function run(args: string[]): Promise<unknown> {
  const count = Number(args[0] ?? 200_000)
  const dimensions = Number(args[1] ?? 1024)
  const space = { providerId: 'bench:random', dimensions }
  const dir = mkdtempSync(join(tmpdir(), 'vlt-vectors-bench-'))
  try {
    let t = performance.now()
    const matrix = randomUnitVectors(count, dimensions, 1)
    const entries: VectorIndexEntry[] = Array.from({ length: count }, (_, i) => ({
      key: i,
      hash: chunkHash(`chunk ${i}`),
      vector: matrix.subarray(i * dimensions, (i + 1) * dimensions),
    }))
    const generateMs = performance.now() - t

    const randomQueries = randomUnitVectors(QUERIES, dimensions, 2)
    const nearCopies = new Float32Array(QUERIES * dimensions)
    const noise = randomUnitVectors(QUERIES, dimensions, 3)
    for (let q = 0; q < QUERIES; q++) {
      const source = ((q * 7919) % count) * dimensions
      for (let j = 0; j < dimensions; j++) nearCopies[q * dimensions + j] = matrix[source + j]! + 0.3 * noise[q * dimensions + j]!
    }

    t = performance.now()
    const truth = exactSearch(matrix, randomQueries, dimensions, 10, MetricKind.Cos, 0) as BatchMatches
    const exactMsPerQuery = (performance.now() - t) / QUERIES

    const figures: Record<string, unknown> = { count, dimensions, generateMs: round(generateMs), exactSearchMsPerQuery: round(exactMsPerQuery) }
    for (const quantization of ['f16', 'f32'] as Quantization[]) {
      t = performance.now()
      const index = VectorIndex.build(entries, space, quantization)
      const buildMs = performance.now() - t

      const latencies: number[] = []
      let recalled = 0
      for (let q = 0; q < QUERIES; q++) {
        const query = randomQueries.subarray(q * dimensions, (q + 1) * dimensions)
        const started = performance.now()
        const hits = index.search(query, 10)
        latencies.push(performance.now() - started)
        const expected = new Set(Array.from(truth.get(q).keys, Number))
        recalled += hits.filter((hit) => expected.has(hit.key)).length
      }
      let top1 = 0
      for (let q = 0; q < QUERIES; q++) {
        const hits = index.search(nearCopies.subarray(q * dimensions, (q + 1) * dimensions), 1)
        if (hits[0]?.key === (q * 7919) % count) top1++
      }

      const path = join(dir, `index-${quantization}.usearch`)
      t = performance.now()
      await index.save(path)
      const saveMs = performance.now() - t
      t = performance.now()
      const loaded = await VectorIndex.load(path, space)
      const loadMs = performance.now() - t
      if (loaded?.size !== count) throw new Error('reloaded index lost vectors')

      latencies.sort((a, b) => a - b)
      figures[quantization] = {
        buildMs: round(buildMs),
        searchP50Ms: round(latencies[Math.floor(QUERIES * 0.5)]!),
        searchP95Ms: round(latencies[Math.floor(QUERIES * 0.95)]!),
        recallAt10VsExact: round(recalled / (QUERIES * 10)),
        nearCopyTop1: round(top1 / QUERIES),
        fileMB: round(statSync(path).size / 2 ** 20),
        saveMs: round(saveMs),
        loadMs: round(loadMs),
      }
      process.stderr.write(`${quantization}: ${JSON.stringify(figures[quantization])}\n`)
    }

    // The cache as embedAll uses it: flushes of 4096 new vectors, then one read of everything.
    const cache = new VectorCache(vltPaths(join(dir, '.vlt')), space.providerId)
    t = performance.now()
    for (let start = 0; start < count; start += 4096) {
      await cache.putMany(entries.slice(start, start + 4096).map((entry) => [entry.hash, entry.vector] as const))
    }
    const cacheWriteMs = performance.now() - t
    t = performance.now()
    const got = await new VectorCache(vltPaths(join(dir, '.vlt')), space.providerId).getMany(entries.map((entry) => entry.hash))
    const cacheReadMs = performance.now() - t
    if (got.size !== count) throw new Error(`cache returned ${got.size} of ${count} vectors`)
    figures.cache = { writeMs: round(cacheWriteMs), readAllMs: round(cacheReadMs) }
    return figures
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Deterministic unit vectors (xorshift32 → roughly Gaussian via the sum of three uniforms). */
function randomUnitVectors(count: number, dimensions: number, seed: number): Float32Array {
  const out = new Float32Array(count * dimensions)
  let state = (seed * 2654435761) >>> 0 || 1
  const next = (): number => {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state / 4294967296
  }
  for (let i = 0; i < count; i++) {
    let norm = 0
    const base = i * dimensions
    for (let j = 0; j < dimensions; j++) {
      const value = next() + next() + next() - 1.5
      out[base + j] = value
      norm += value * value
    }
    norm = Math.sqrt(norm)
    for (let j = 0; j < dimensions; j++) out[base + j]! /= norm
  }
  return out
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await run(process.argv.slice(2)), null, 2)}\n`)
}
