/**
 * `node --import tsx bench/tree-sitter-floor.ts <repo> [--parse-only]`: the part of a cold init
 * that no change to git-vlt's own code can shorten. Every file of HEAD that an init would parse
 * (vlt.toml's selection, a parsed language, within the size limit) is read from the working tree
 * (the bench's corpora have no edits), parsed and run through its tags query exactly as extraction runs them
 * (`parserInput`, `RawMatches`), on as many worker threads as an init starts, and nothing else is
 * done: no chunks, no analysis, no storage. `--parse-only` leaves out the query too: the least any
 * index built on tree-sitter's parse trees can take. Prints {mode, files, megabytes, workers,
 * captures, wallS} as JSON; wallS runs from starting the workers (their boot, wasm and query
 * compilation included, as in an init) to the last file. Run it under /usr/bin/time for CPU seconds.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'
import { Parser, type Query } from 'web-tree-sitter'
import { listTree } from '../src/core/git/index.js'
import { openIndexContext } from '../src/core/index/index.js'
import { defaultPoolSize, startWorker } from '../src/core/index/pool.js'
import { parserInput } from '../src/core/parse/extract.js'
import { loadLanguage } from '../src/core/parse/grammars.js'
import type { ParsedLanguageId } from '../src/core/parse/languages.js'
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

interface FloorFigures {
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

/** The files of HEAD an init would parse, chosen as buildTree chooses them. */
async function parsedFiles(cwd: string): Promise<{ root: string; files: FloorFile[] }> {
  const ctx = await openIndexContext(cwd)
  const files: FloorFile[] = []
  for (const entry of await listTree(ctx.repo, ctx.repo.head.tree)) {
    const selection = ctx.selectFile(entry.path)
    if (selection.selected && selection.language !== 'text' && entry.size <= ctx.config.index.maxFileBytes) files.push({ path: entry.path, language: selection.language })
  }
  return { root: ctx.repo.root ?? cwd, files }
}

async function measureFloor(cwd: string, query: boolean): Promise<FloorFigures> {
  const { root, files } = await parsedFiles(cwd)
  const workers = defaultPoolSize()
  const data: FloorData = { repo: root, files, query, next: new SharedArrayBuffer(4) }
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
