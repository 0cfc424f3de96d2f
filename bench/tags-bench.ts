/**
 * `node --import tsx bench/tags-bench.ts [files per language]`: parse vs tags extraction cost on
 * real code (C from bench/.work/linux10k, Python from bench/.work/django), single thread. The
 * tags column is split into the query alone (RawMatches, as extraction runs it) and query +
 * engine. Times are CPU times (best of three passes), so that other processes on the machine skew
 * them less. Parse + query is the part of a cold init no JavaScript change can shorten.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Parser, type Tree } from 'web-tree-sitter'
import { parserInput } from '../src/core/parse/extract.js'
import { loadLanguage } from '../src/core/parse/grammars.js'
import type { ParsedLanguageId } from '../src/core/parse/languages.js'
import { extractTags } from '../src/core/parse/tags/index.js'
import { tagsQuery } from '../src/core/parse/tags/query.js'
import { RawMatches } from '../src/core/parse/tags/raw-matches.js'

const WORK = join(dirname(fileURLToPath(import.meta.url)), '.work')
const CORPORA: Array<{ language: ParsedLanguageId; repo: string; pattern: string }> = [
  { language: 'c', repo: 'linux10k', pattern: '*.c' },
  { language: 'python', repo: 'django', pattern: '*.py' },
]

export interface TagsFigures {
  language: ParsedLanguageId
  files: number
  megabytes: number
  parseMsPerMb: number
  queryMsPerMb: number
  tagsMsPerMb: number
  tagsPerParse: number
}

/** Every n-th tracked file, so that the sample spreads over the whole tree. */
function sampleFiles(repo: string, pattern: string, count: number): string[] {
  const all = execFileSync('git', ['ls-files', '--', pattern], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 })
    .split('\n').filter(Boolean)
  const step = Math.max(1, Math.floor(all.length / count))
  return all.filter((_, i) => i % step === 0).slice(0, count)
}

async function measure(language: ParsedLanguageId, repo: string, pattern: string, count: number): Promise<TagsFigures> {
  const sources = sampleFiles(repo, pattern, count).map((file) => readFileSync(join(repo, file), 'utf8'))
  const grammar = await loadLanguage(language)
  const parser = new Parser()
  parser.setLanguage(grammar)
  const query = tagsQuery(parser.language!, language)

  let trees: Tree[] = []
  const parseMs = bestOf(() => {
    for (const tree of trees) tree.delete()
    trees = sources.map((source) => parser.parse(parserInput(source, language))!)
  })
  let captures = 0
  const queryMs = bestOf(() => {
    captures = 0
    for (let i = 0; i < trees.length; i++) {
      const matches = new RawMatches(query, trees[i]!, sources[i]!)
      for (let m = 0; m < matches.count; m++) captures += matches.captureCount(m)
    }
  })
  const tagsMs = bestOf(() => {
    for (let i = 0; i < trees.length; i++) extractTags(trees[i]!, language, sources[i]!)
  })

  for (const tree of trees) tree.delete()
  parser.delete()
  const megabytes = sources.reduce((sum, source) => sum + Buffer.byteLength(source), 0) / 1e6
  process.stderr.write(`${language}: ${captures} captures\n`)
  return {
    language,
    files: sources.length,
    megabytes: round(megabytes),
    parseMsPerMb: round(parseMs / megabytes),
    queryMsPerMb: round(queryMs / megabytes),
    tagsMsPerMb: round(tagsMs / megabytes),
    tagsPerParse: round(tagsMs / parseMs),
  }
}

function cpuMs(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

/** Best of three passes, after a first one that warms up the JIT. */
function bestOf(pass: () => void): number {
  pass()
  let best = Infinity
  for (let i = 0; i < 3; i++) {
    const start = cpuMs()
    pass()
    best = Math.min(best, cpuMs() - start)
  }
  return best
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

export async function run(args: string[]): Promise<TagsFigures[]> {
  const count = Number(args[0] ?? 500)
  const figures: TagsFigures[] = []
  for (const corpus of CORPORA) {
    const repo = join(WORK, corpus.repo)
    if (!existsSync(repo)) {
      process.stderr.write(`skipping ${corpus.language}: ${repo} is missing\n`)
      continue
    }
    figures.push(await measure(corpus.language, repo, corpus.pattern, count))
  }
  return figures
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await run(process.argv.slice(2))
  console.table(figures)
}
