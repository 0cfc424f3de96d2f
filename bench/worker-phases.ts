/**
 * `node --import tsx bench/worker-phases.ts <repo> [--files N]`: where an index worker's CPU goes,
 * phase by phase, over the first N (default 2000) files of HEAD that an init would parse, each
 * processed in this one thread as `processBlob` does it: classify (and redact), the parse, the
 * tags query, chunking, the analysis of chunks for BM25, reference columns, the record's encoding
 * (its stored form, msgpack, brotli). Each phase is timed in CPU microseconds of this process,
 * where one thread does the work (the figure a loaded machine inflates least). Prints a table; run
 * under `--cpu-prof` for the functions within a phase.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Parser } from 'web-tree-sitter'
import { classifyContent } from '../src/core/files/index.js'
import { listTree } from '../src/core/git/index.js'
import { encodeBlobRecord } from '../src/core/index/blob-task.js'
import { openIndexContext } from '../src/core/index/index.js'
import { chunkTree, LineIndex } from '../src/core/parse/chunk/index.js'
import { parserInput } from '../src/core/parse/extract.js'
import { loadLanguage } from '../src/core/parse/grammars.js'
import { languageForPath, type ParsedLanguageId } from '../src/core/parse/languages.js'
import { toReferenceColumns } from '../src/core/parse/reference-columns.js'
import { extractTags } from '../src/core/parse/tags/index.js'
import { tagsQuery } from '../src/core/parse/tags/query.js'
import { analyzeChunks } from '../src/core/search/analyze.js'

const repo = process.argv[2]
if (!repo) throw new Error('usage: worker-phases.ts <repo> [--files N]')
const filesAt = process.argv.indexOf('--files')
const limit = filesAt > 0 ? Number(process.argv[filesAt + 1]) : 2000

const ctx = await openIndexContext(repo, { syncing: false })
const entries = (await listTree(ctx.repo, ctx.repo.head.tree)).flatMap((entry) => {
  const language = languageForPath(entry.path)
  return language && entry.size <= ctx.config.index.maxFileBytes ? [{ path: entry.path, language }] : []
})
const files = entries.slice(0, limit)

const phases = ['read', 'classify', 'parse', 'tags', 'chunk', 'analyze', 'columns', 'encode'] as const
const spent = Object.fromEntries(phases.map((phase) => [phase, 0])) as Record<(typeof phases)[number], number>
const parsers = new Map<ParsedLanguageId, Parser>()
let cpu = process.cpuUsage().user + process.cpuUsage().system
const lap = (phase: (typeof phases)[number]): void => {
  const { user, system } = process.cpuUsage()
  spent[phase] += user + system - cpu
  cpu = user + system
}

let bytes = 0
for (const { path, language } of files) {
  let parser = parsers.get(language)
  if (!parser) {
    const grammar = await loadLanguage(language)
    parser = new Parser()
    parser.setLanguage(grammar)
    tagsQuery(grammar, language)
    parsers.set(language, parser)
  }
  cpu = process.cpuUsage().user + process.cpuUsage().system
  const raw = readFileSync(join(repo, path))
  bytes += raw.length
  lap('read')
  const content = classifyContent(raw, ctx.config.index.maxFileBytes)
  lap('classify')
  if (!content.ok) continue
  const tree = parser.parse(parserInput(content.text, language))!
  const lines = new LineIndex(content.text)
  lap('parse')
  const tags = extractTags(tree, language, content.text)
  lap('tags')
  const chunks = chunkTree(tree.rootNode, language, lines, tags)
  tree.delete()
  lap('chunk')
  const analyzed = analyzeChunks(chunks)
  lap('analyze')
  const references = toReferenceColumns(tags.references)
  lap('columns')
  const stored = chunks.map(({ body: _text, ...chunk }) => chunk)
  encodeBlobRecord({ artifact: { language, chunks: stored, symbols: tags.symbols, references, imports: tags.imports, parseErrors: 0, lineCount: lines.count }, analyzed })
  lap('encode')
}

const total = Object.values(spent).reduce((a, b) => a + b, 0)
console.log(`${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, ${(total / 1e6).toFixed(2)} CPU-s`)
for (const phase of phases) console.log(`${phase.padEnd(10)} ${(spent[phase] / 1e6).toFixed(2).padStart(7)} s ${((100 * spent[phase]) / total).toFixed(1).padStart(5)} %`)
