/**
 * flexsearch (the product card's suggested engine) against Bm25Index on the same Linux chunks:
 * index time, memory, query latency, and ranking — how often an exact identifier query puts its
 * definition first, and how much of flexsearch's top 10 BM25 shares for prose queries.
 * flexsearch runs twice: with its default encoder, and fed our analyzer's terms.
 *
 *   node --expose-gc --import tsx bench/bm25-vs-flexsearch.ts
 */
import FlexSearch, { type Index as FlexIndex } from 'flexsearch'
import { pathToFileURL } from 'node:url'
import { analyzeChunks, analyzeQuery, Bm25Index } from '../src/core/search/index.js'
import type { Chunk } from '../src/core/parse/types.js'
import { definitionQueries, PROSE_QUERIES } from './bm25.js'
import { linuxFiles } from './bm25-corpus.js'

interface Engine {
  name: string
  build(): void
  search(query: string): Array<{ path: string; chunkIndex: number }>
}

const LIMIT = 10

function heapBytes(): number {
  global.gc?.()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

function percentile(values: number[], p: number): number {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** The indexed fields, name first: flexsearch ranks earlier positions higher. */
function chunkText(path: string, chunk: Chunk): string {
  return [chunk.name, chunk.qualifiedName, chunk.signature, chunk.docstring, path, chunk.body].join('\n')
}

export async function run(): Promise<unknown> {
  const files = linuxFiles()
  const docs: Array<{ path: string; chunkIndex: number }> = []
  for (const file of files) file.chunks.forEach((_, chunkIndex) => docs.push({ path: file.path, chunkIndex }))
  const analyzed = files.map((file) => ({ path: file.path, chunks: analyzeChunks(file.chunks) }))

  const flex = (name: string, options: ConstructorParameters<typeof FlexIndex>[0]): Engine => {
    let index: ReturnType<typeof newIndex>
    const newIndex = () => new FlexSearch.Index(options)
    return {
      name,
      build() {
        index = newIndex()
        let id = 0
        for (const file of files) for (const chunk of file.chunks) index.add(id++, chunkText(file.path, chunk))
      },
      search: (query) => (index.search(query, { limit: LIMIT }) as number[]).map((id) => docs[id]),
    }
  }
  let bm25: Bm25Index
  const engines: Engine[] = [
    {
      name: 'bm25 (src/core/search)',
      build() {
        bm25 = new Bm25Index()
        for (const file of analyzed) bm25.addFile(file.path, file.chunks)
        bm25.snapshot()
      },
      search: (query) => bm25.search(query, { limit: LIMIT }),
    },
    flex('flexsearch default', { tokenize: 'strict' }),
    flex('flexsearch + our analyzer', { tokenize: 'strict', encode: (text: string) => analyzeQuery(text) }),
  ]

  const definitions = definitionQueries()
  const results: Record<string, unknown> = {}
  const top10: Record<string, Array<Array<{ path: string; chunkIndex: number }>>> = {}
  for (const engine of engines) {
    const before = heapBytes()
    const t0 = performance.now()
    engine.build()
    const buildMs = performance.now() - t0
    const memoryMB = Math.round((heapBytes() - before) / 1e5) / 10
    const queries = [...PROSE_QUERIES, ...definitions.map((d) => d.name)]
    for (const q of queries) engine.search(q)
    const latencies: number[] = []
    for (const q of queries) {
      const start = performance.now()
      engine.search(q)
      latencies.push(performance.now() - start)
    }
    let definitionFirst = 0
    for (const d of definitions) {
      const first = engine.search(d.name)[0]
      if (first && first.path === d.path && first.chunkIndex === d.chunkIndex) definitionFirst++
    }
    top10[engine.name] = PROSE_QUERIES.map((q) => engine.search(q))
    results[engine.name] = {
      buildMs: Math.round(buildMs),
      memoryMB,
      queryP50Ms: Math.round(percentile(latencies, 50) * 100) / 100,
      queryP95Ms: Math.round(percentile(latencies, 95) * 100) / 100,
      definitionFirst: `${definitionFirst}/${definitions.length}`,
    }
  }
  // Share of each engine's top 10 that BM25's top 10 also holds, averaged over the prose queries.
  const reference = top10[engines[0].name]
  for (const engine of engines.slice(1)) {
    const overlaps = top10[engine.name].map((hits, q) => {
      const keys = new Set(reference[q].map((h) => `${h.path}#${h.chunkIndex}`))
      return hits.length === 0 ? 0 : hits.filter((h) => keys.has(`${h.path}#${h.chunkIndex}`)).length / LIMIT
    })
    ;(results[engine.name] as Record<string, unknown>).top10OverlapWithBm25 = Math.round((overlaps.reduce((a, b) => a + b, 0) / overlaps.length) * 100) / 100
    ;(results[engine.name] as Record<string, unknown>).proseQueriesWithNoHit = top10[engine.name].filter((hits) => hits.length === 0).length
  }
  return { chunks: docs.length, identifierQueries: definitions.length, proseQueries: PROSE_QUERIES.length, engines: results }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`)
}
