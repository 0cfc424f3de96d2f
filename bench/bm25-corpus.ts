/**
 * Chunks for the BM25 benchmarks: the first 10,000 .c files (by path) of Debian linux-source-6.1,
 * cut into 60-line windows by a local splitter so these benchmarks do not depend on the real
 * chunker. Analysed documents are cached under bench/.work/ (delete to rebuild).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { pack, unpack } from 'msgpackr'
import { analyzeChunks, type AnalyzedChunks } from '../src/core/search/index.js'
import type { Chunk } from '../src/core/parse/types.js'
import { WORK } from './corpus.js'

const LINUX_TREE = '/tmp/linux/linux-source-6.1'
/** 20-line windows give ~270k chunks, the scale the real chunker is expected to produce on this corpus. */
const WINDOW = 20

export interface CorpusFile {
  path: string
  chunks: Chunk[]
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path, out)
    else if (entry.isFile() && entry.name.endsWith('.c')) out.push(path)
  }
  return out
}

/** A C definition line at column 0: `type name(` → name. */
const DEFINITION = /^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\(/
const IDENTIFIER = /[A-Za-z_]\w*/

function windowChunk(lines: string[], start: number): Chunk {
  const body = lines.slice(start, start + WINDOW).join('\n')
  let name = ''
  let signature = ''
  for (const line of lines.slice(start, start + WINDOW)) {
    const m = DEFINITION.exec(line)
    if (m && !/^(if|for|while|switch|return)\b/.test(line)) {
      name = m[1]
      signature = line
      break
    }
  }
  if (!name) name = IDENTIFIER.exec(body)?.[0] ?? ''
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(body)?.[1] ?? ''
  return {
    kind: signature ? 'function' : 'block',
    name,
    qualifiedName: name,
    language: 'c',
    startLine: start + 1,
    endLine: Math.min(start + WINDOW, lines.length),
    imports: '',
    classContext: '',
    signature,
    decorators: '',
    docstring: doc,
    body,
    tokenCount: Math.ceil(body.length / 4),
  }
}

export function linuxFiles(count = 10_000): CorpusFile[] {
  if (!existsSync(LINUX_TREE)) throw new Error(`missing ${LINUX_TREE}: mkdir -p /tmp/linux && tar -xJf /usr/src/linux-source-6.1.tar.xz -C /tmp/linux`)
  const paths = walk(LINUX_TREE, []).sort().slice(0, count)
  return paths.map((abs) => {
    const lines = readFileSync(abs, 'utf8').split('\n')
    const chunks: Chunk[] = []
    for (let start = 0; start < lines.length; start += WINDOW) chunks.push(windowChunk(lines, start))
    return { path: relative(LINUX_TREE, abs), chunks }
  })
}

export interface AnalyzedFile {
  path: string
  chunks: AnalyzedChunks
}

/** Analysed documents of the corpus, cached; `analyzeMs` is set only when they were computed now. */
export function linuxDocs(count = 10_000): { files: AnalyzedFile[]; analyzeMs?: number; chunks: number; bytes: number } {
  const cache = join(WORK, `bm25-linux${count}.mpk`)
  if (existsSync(cache)) {
    const files = unpack(readFileSync(cache)) as AnalyzedFile[]
    return { files, chunks: files.reduce((n, f) => n + f.chunks.docs.length, 0), bytes: 0 }
  }
  const corpus = linuxFiles(count)
  const bytes = corpus.reduce((n, f) => n + f.chunks.reduce((m, c) => m + c.body.length, 0), 0)
  const t0 = performance.now()
  const files = corpus.map((f) => ({ path: f.path, chunks: analyzeChunks(f.chunks) }))
  const analyzeMs = performance.now() - t0
  mkdirSync(dirname(cache), { recursive: true })
  writeFileSync(cache, pack(files))
  return { files, analyzeMs, chunks: files.reduce((n, f) => n + f.chunks.docs.length, 0), bytes }
}
