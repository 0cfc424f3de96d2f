/**
 * `node --import tsx bench/tree-sitter-floor.ts <repo> [--parse-only]`: the part of a cold init
 * that no change to git-vlt's own code can shorten. Every tracked file in a parsed language is read
 * from the working tree, parsed and run through its tags query exactly as extraction runs them
 * (`parserInput`, `RawMatches`), on as many worker threads as an init starts, and nothing else is
 * done: no chunks, no analysis, no storage. `--parse-only` leaves out the query too: the least any
 * index built on tree-sitter's parse trees can take. Prints {mode, files, megabytes, workers,
 * captures, wallS} as JSON; wallS runs from starting the workers (their boot, wasm and query
 * compilation included, as in an init) to the last file. Run it under /usr/bin/time for CPU seconds.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'
import { Parser, type Query } from 'web-tree-sitter'
import { defaultPoolSize, startWorker } from '../src/core/index/pool.js'
import { parserInput } from '../src/core/parse/extract.js'
import { loadLanguage } from '../src/core/parse/grammars.js'
import { languageForPath, type ParsedLanguageId } from '../src/core/parse/languages.js'
import { tagsQuery } from '../src/core/parse/tags/query.js'
import { RawMatches } from '../src/core/parse/tags/raw-matches.js'

interface FloorFile {
  path: string
  language: ParsedLanguageId
}

interface FloorData {
  repo: string
  files: FloorFile[]
  query: boolean
  /** One Int32: the next file to take. Workers take files one at a time, as the index pool keeps each busy. */
  next: SharedArrayBuffer
}

export interface FloorFigures {
  mode: 'parse+query' | 'parse'
  files: number
  megabytes: number
  workers: number
  captures: number
  wallS: number
}

async function parseAndQuery({ repo, files, query, next }: FloorData): Promise<{ captures: number; bytes: number }> {
  const counter = new Int32Array(next)
  const ready = new Map<ParsedLanguageId, { parser: Parser; query: Query | null }>()
  let captures = 0
  let bytes = 0
  for (let i = Atomics.add(counter, 0, 1); i < files.length; i = Atomics.add(counter, 0, 1)) {
    const { path, language } = files[i]!
    let engine = ready.get(language)
    if (!engine) {
      const grammar = await loadLanguage(language)
      const parser = new Parser()
      parser.setLanguage(grammar)
      engine = { parser, query: query ? tagsQuery(grammar, language) : null }
      ready.set(language, engine)
    }
    const source = readFileSync(join(repo, path), 'utf8')
    bytes += Buffer.byteLength(source)
    const tree = engine.parser.parse(parserInput(source, language))!
    if (engine.query) {
      const matches = new RawMatches(engine.query, tree, source)
      for (let m = 0; m < matches.count; m++) captures += matches.captureCount(m)
    }
    tree.delete()
  }
  return { captures, bytes }
}

export async function measureFloor(repo: string, query: boolean): Promise<FloorFigures> {
  const files: FloorFile[] = []
  for (const path of execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\0')) {
    const language = path ? languageForPath(path) : undefined
    if (language) files.push({ path, language })
  }
  const workers = defaultPoolSize()
  const data: FloorData = { repo, files, query, next: new SharedArrayBuffer(4) }
  const started = process.hrtime.bigint()
  const results = await Promise.all(Array.from({ length: workers }, () => new Promise<{ captures: number; bytes: number }>((resolve, reject) => {
    const worker = startWorker(new URL(import.meta.url), { workerData: data })
    worker.once('message', resolve)
    worker.once('error', reject)
  })))
  const wallS = Number(process.hrtime.bigint() - started) / 1e9
  return {
    mode: query ? 'parse+query' : 'parse',
    files: files.length,
    megabytes: Math.round(results.reduce((sum, r) => sum + r.bytes, 0) / 1e4) / 100,
    workers,
    captures: results.reduce((sum, r) => sum + r.captures, 0),
    wallS: Math.round(wallS * 100) / 100,
  }
}

if (!isMainThread) {
  parentPort!.postMessage(await parseAndQuery(workerData as FloorData))
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await measureFloor(process.argv[2]!, process.argv[3] !== '--parse-only'))}\n`)
}
