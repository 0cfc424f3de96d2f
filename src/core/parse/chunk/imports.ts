import type { Node } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../languages.js'
import type { ImportRef } from '../types.js'
import type { LineIndex } from './lines.js'

/** An identifier not reached through `.` (an attribute, or a file extension in a string). */
const IDENTIFIER = /(?<![\w$.])[A-Za-z_$][\w$]*/g
const MAX_STATEMENT_CHARS = 300

/**
 * The file's import statements a chunk depends on: those binding a name that occurs in the
 * chunk's text as an identifier. Textual on purpose — it needs no reference to be captured by
 * the tags query, and a name mentioned in a comment is still worth its import line.
 */
export class ChunkImports {
  private readonly byName = new Map<string, number[]>()
  private readonly statements: Array<string | undefined>

  constructor(
    private readonly imports: readonly ImportRef[],
    language: ParsedLanguageId,
    private readonly root: Node,
    private readonly lines: LineIndex,
  ) {
    imports.forEach((ref, index) => {
      for (const name of boundNames(ref, language)) {
        const list = this.byName.get(name)
        if (list) list.push(index)
        else this.byName.set(name, [index])
      }
    })
    this.statements = new Array(imports.length)
  }

  /**
   * Newline-joined statements, in file order, of the imports `body` uses; imports on the
   * chunk's own lines (1-based `first..last`) are already in it.
   */
  usedIn(body: string, first: number, last: number): string {
    if (this.byName.size === 0) return ''
    const used = new Set<number>()
    for (const match of body.matchAll(IDENTIFIER)) {
      const indexes = this.byName.get(match[0])
      if (!indexes) continue
      for (const index of indexes) {
        const line = this.imports[index]!.line
        if (line < first || line > last) used.add(index)
      }
    }
    if (used.size === 0) return ''
    const texts: string[] = []
    for (const index of [...used].sort((a, b) => a - b)) {
      const text = this.statement(index)
      if (!texts.includes(text)) texts.push(text)
    }
    return texts.join('\n')
  }

  /**
   * The statement an import was read from: the outermost node starting where its line's code
   * starts (`from x import (a,\n b)` whole, one spec of a grouped Go import).
   */
  private statement(index: number): string {
    let text = this.statements[index]
    if (text === undefined) {
      const lines = this.lines
      const line = this.imports[index]!.line - 1
      const lineText = lines.source.slice(lines.start(line), lines.end(line))
      const at = lines.start(line) + (lineText.length - lineText.trimStart().length)
      let node = this.root.descendantForIndex(at) ?? this.root
      for (let parent = node.parent; parent?.parent && parent.startIndex === node.startIndex; parent = parent.parent) node = parent
      text = node.startIndex === at ? lines.source.slice(at, node.endIndex).trimEnd() : lineText.trim()
      if (text.length > MAX_STATEMENT_CHARS) text = text.slice(0, MAX_STATEMENT_CHARS)
      this.statements[index] = text
    }
    return text
  }
}

/** Names an import binds in the importing file. */
export function boundNames(ref: ImportRef, language: ParsedLanguageId): string[] {
  const names: string[] = []
  if (ref.alias && ref.alias !== '_' && ref.alias !== '.') names.push(ref.alias)
  for (const { name, alias } of ref.names) {
    const bound = alias ?? name
    if (bound !== '*' && bound !== 'default') names.push(bound)
  }
  if (names.length > 0 || ref.alias || ref.names.length > 0) return names
  return moduleBinding(ref.module, language)
}

/** What importing a whole module binds when no alias is written. */
function moduleBinding(module: string, language: ParsedLanguageId): string[] {
  switch (language) {
    // `import os.path` binds `os`.
    case 'python': return [module.split('.')[0]!].filter(Boolean)
    // A Go package is named by its path's last segment, before a major-version suffix.
    case 'go': {
      const segments = module.split('/')
      const last = segments.length > 1 && /^v\d+$/.test(segments[segments.length - 1]!) ? segments[segments.length - 2] : segments[segments.length - 1]
      return last ? [last.replace(/[^\w$].*$/, '')].filter(Boolean) : []
    }
    // Includes, requires and side-effect imports (`import './polyfill'`) bind nothing.
    case 'c': case 'cpp': case 'ruby': case 'javascript': case 'typescript': case 'tsx': return []
    default: {
      const last = module.split(/[./:\\]+/).filter(Boolean).pop()
      return last && /^[A-Za-z_$][\w$]*$/.test(last) ? [last] : []
    }
  }
}
