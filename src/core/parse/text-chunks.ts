import { approximateTokens, LineIndex, MAX_CHUNK_CHARS } from './chunk/index.js'
import type { Chunk, FileArtifact, LanguageId } from './types.js'
import { textPackageDirs } from './package-dirs.js'

/**
 * A file as line windows, without parsing: how files in languages without a grammar are indexed,
 * and a file of a parsed language whose parse went past its bounds. `language` stays the file's.
 */
export function textArtifact(source: string, language: LanguageId): FileArtifact {
  const lines = new LineIndex(source)
  // A packaging configuration's package directories (pyproject.toml, setup.cfg) are import roots.
  const imports = language === 'text' ? textPackageDirs(source) : []
  return { language, chunks: textChunks(lines), symbols: [], references: [], imports, parseErrors: 0, lineCount: lines.count }
}

/**
 * Line windows for files without a grammar (Markdown, config, prose). A window holds up to 60
 * lines and the code chunks' character budget, so chunks of all files are alike in size. It ends
 * at a paragraph break (blank line) in its second half when there is one, so that sections and
 * paragraphs stay whole and no overlap is needed; a window cut inside a paragraph repeats its
 * last 5 lines at the start of the next one, so a passage spanning the cut is found whole in
 * one of them. A single line is never split.
 */
export const TEXT_WINDOW_LINES = 60
export const TEXT_OVERLAP_LINES = 5

export function textChunks(lines: LineIndex): Chunk[] {
  const chunks: Chunk[] = []
  let start = 0
  while (start < lines.count) {
    while (start < lines.count && lines.isBlank(start)) start++
    if (start >= lines.count) break
    let end = start + 1 // exclusive
    while (
      end < lines.count && end - start < TEXT_WINDOW_LINES &&
      lines.end(end) - lines.start(start) <= MAX_CHUNK_CHARS
    ) end++
    let next = end
    if (end < lines.count) {
      const paragraph = lastBlankLine(lines, start + Math.ceil((end - start) / 2), end)
      if (paragraph >= 0) next = end = paragraph
      else if (end - start > TEXT_OVERLAP_LINES) next = end - TEXT_OVERLAP_LINES
    }
    let last = end - 1
    while (lines.isBlank(last)) last--
    const body = lines.text(start, last)
    chunks.push({
      kind: 'block', name: '', qualifiedName: '', language: 'text',
      startLine: start + 1, endLine: last + 1,
      imports: '', classContext: '', signature: '', decorators: '', docstring: '',
      body, tokenCount: approximateTokens(body.length),
    })
    start = next
  }
  return chunks
}

function lastBlankLine(lines: LineIndex, from: number, to: number): number {
  for (let line = to - 1; line >= from; line--) if (lines.isBlank(line)) return line
  return -1
}
