/**
 * Notes index and search latency on a real markdown corpus: up to 2,000 markdown files of
 * node_modules (READMEs, changelogs, docs), copied into a git repository under bench/.work/.
 *
 *   npx tsx bench/notes-bench.ts [--files N]
 *
 * Measures: cold build (nothing stored), no-op open (same notes), one edited note, one edited
 * note whose artifact is already stored, and search latency per query (index already fresh).
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findNotes, openNotes } from '../src/core/notes/index.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const WORK = join(ROOT, 'bench', '.work', 'notes-corpus')
const fileCount = Number(process.argv[process.argv.indexOf('--files') + 1]) || 2000
const QUERIES = ['install', 'license MIT permission', 'parse options', 'breaking changes', 'typescript types', 'stream error handling', 'configuration file', 'async iterator']

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd: WORK,
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
}

/** Markdown files of node_modules in directory order, like `find node_modules -name '*.md' | head`. */
function markdownFiles(dir: string, limit: number, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (found.length >= limit) break
    const path = join(dir, entry.name)
    if (entry.isDirectory()) markdownFiles(path, limit, found)
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) found.push(path)
  }
  return found
}

function prepare(): void {
  if (existsSync(join(WORK, '.git'))) return
  mkdirSync(WORK, { recursive: true })
  const source = join(ROOT, 'node_modules')
  for (const file of markdownFiles(source, fileCount)) {
    // node_modules/ is a built-in exclude; the corpus keeps the package structure under pkgs/.
    const target = join(WORK, 'pkgs', relative(source, file))
    mkdirSync(dirname(target), { recursive: true })
    copyFileSync(file, target)
  }
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '-m', 'corpus')
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now()
  const result = await run()
  return [result, performance.now() - start]
}

/** `npm run bench -- notes [--files N]`: index build and search on a real markdown corpus. */
export async function run(): Promise<unknown> {
  prepare()
  rmSync(join(WORK, '.vlt'), { recursive: true, force: true })
  const [cold, coldMs] = await timed(() => openNotes(WORK))
  const sections = cold.bm25.docCount
  const [, noopMs] = await timed(() => openNotes(WORK))

  const edited = cold.notes[Math.floor(cold.notes.length / 2)]!.path
  appendFileSync(join(WORK, edited), '\n## Bench edit\n\nA paragraph about zebra migrations.\n')
  const [afterEdit, editMs] = await timed(() => openNotes(WORK))
  git('checkout', '-q', '--', edited)
  const [afterRevert, revertMs] = await timed(() => openNotes(WORK))

  const latencies: number[] = []
  for (const query of QUERIES) {
    const [, ms] = await timed(() => findNotes(WORK, query, { limit: 10 }))
    latencies.push(ms)
  }
  latencies.sort((a, b) => a - b)

  const report = {
    corpus: `${cold.notes.length} markdown files from node_modules (${sections} sections)`,
    coldBuildMs: Math.round(coldMs),
    noopOpenMs: Math.round(noopMs),
    oneEditMs: Math.round(editMs),
    oneEditParsed: afterEdit.freshness.parsed,
    revertMs: Math.round(revertMs),
    revertParsed: afterRevert.freshness.parsed,
    revertReused: afterRevert.freshness.reused,
    searchMs: { median: Math.round(latencies[latencies.length >> 1]!), max: Math.round(latencies[latencies.length - 1]!) },
  }
  return report

}
