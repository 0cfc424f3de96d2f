/**
 * `node --import tsx bench/parse-cost.ts <dir> [--min-bytes B] [--top N]`: what one file's
 * extraction costs on real code, to choose the parse bounds ([index] parse_timeout_ms,
 * parse_memory_mb) so that they never fire on it. Every file under <dir> in a parsed language of at
 * least B bytes (default 0) is extracted as a worker does it (`processBlob`: classify, parse, tags,
 * chunks, analysis), without size limit or bounds, and timed (wall clock and CPU); files of 1 MiB and more each in a
 * process of its own, which also gives their peak memory: the parser's wasm memory (it never
 * shrinks), the V8 heap and the process's maximum RSS. Prints {files, megabytes, slowest,
 * slowestPerMb, mostMemory} as JSON (N of each).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeapStatistics } from 'node:v8'
import { processBlob } from '../src/core/index/process-blob.js'
import { createExtractor, type Extractor } from '../src/core/parse/extract.js'
import { wasmMemoryBytes } from '../src/core/parse/grammars.js'
import { languageForPath, type ParsedLanguageId } from '../src/core/parse/languages.js'

interface Cost {
  path: string
  bytes: number
  /** Wall-clock, and CPU time of the extracting thread (the figure a loaded machine inflates least). */
  ms: number
  cpuMs: number
  cpuMsPerMb: number
  wasmMb?: number
  heapMb?: number
  maxRssMb?: number
}

const NO_LIMIT = 2 ** 31
const OWN_PROCESS_BYTES = 1024 * 1024
const MB = 1024 * 1024

async function timeOne(extractor: Extractor, path: string, language: ParsedLanguageId): Promise<{ ms: number; cpuMs: number }> {
  const bytes = readFileSync(path)
  // The thread's one-time setup (grammar, query compilation) is no cost of the file.
  await extractor.prepare(language)
  const started = performance.now()
  const cpu = process.cpuUsage()
  await processBlob({ blob: '', language, bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, maxFileBytes: NO_LIMIT }, extractor)
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }
}

/** Child mode: one file, then its time and memory on stdout. */
async function measureOne(path: string, language: ParsedLanguageId): Promise<void> {
  const times = await timeOne(await createExtractor(), path, language)
  process.stdout.write(JSON.stringify({ ...times, wasmMb: wasmMemoryBytes() / MB, heapMb: getHeapStatistics().total_heap_size / MB, maxRssMb: process.resourceUsage().maxRSS / 1024 }))
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (entry.isFile()) yield path
  }
}

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}

const round = (n: number | undefined) => (n === undefined ? undefined : Math.round(n))

async function main(): Promise<void> {
  if (process.argv[2] === '--one') return measureOne(process.argv[3]!, process.argv[4] as ParsedLanguageId)
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: bench/parse-cost.ts <dir> [--min-bytes B] [--top N]')
  const minBytes = flag('--min-bytes', 0)
  const top = flag('--top', 10)
  const self = fileURLToPath(import.meta.url)
  const extractor = await createExtractor()
  const costs: Cost[] = []
  for (const path of walk(dir)) {
    const language = languageForPath(path)
    const bytes = language ? statSync(path).size : 0
    if (!language || bytes < minBytes) continue
    let cost: Cost
    if (bytes >= OWN_PROCESS_BYTES) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', self, '--one', path, language], { encoding: 'utf8', maxBuffer: 1 << 20 })
      if (child.status !== 0) {
        console.error(`${path}: exited ${child.status}: ${child.stderr.slice(0, 500)}`)
        continue
      }
      const measured = JSON.parse(child.stdout) as { ms: number; cpuMs: number; wasmMb: number; heapMb: number; maxRssMb: number }
      cost = { path, bytes, cpuMsPerMb: 0, ...measured }
    } else {
      cost = { path, bytes, cpuMsPerMb: 0, ...(await timeOne(extractor, path, language)) }
    }
    cost.cpuMsPerMb = cost.cpuMs / (bytes / MB)
    costs.push(cost)
  }
  const shown = (list: Cost[]) =>
    list.slice(0, top).map((c) => ({ ...c, path: relative(dir, c.path), ms: round(c.ms), cpuMs: round(c.cpuMs), cpuMsPerMb: round(c.cpuMsPerMb), wasmMb: round(c.wasmMb), heapMb: round(c.heapMb), maxRssMb: round(c.maxRssMb) }))
  console.log(
    JSON.stringify(
      {
        files: costs.length,
        megabytes: Math.round(costs.reduce((sum, c) => sum + c.bytes, 0) / MB),
        slowest: shown([...costs].sort((a, b) => b.cpuMs - a.cpuMs)),
        slowestPerMb: shown([...costs].sort((a, b) => b.cpuMsPerMb - a.cpuMsPerMb)),
        mostMemory: shown(costs.filter((c) => c.maxRssMb !== undefined).sort((a, b) => b.maxRssMb! - a.maxRssMb!)),
      },
      null,
      2,
    ),
  )
}

await main()
