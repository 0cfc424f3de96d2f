import { Parser, type Node } from 'web-tree-sitter'
import { blankAttributeMacros } from './c-attribute-macros.js'
import { chunkTree, LineIndex } from './chunk/index.js'
import { loadLanguage } from './grammars.js'
import type { ParsedLanguageId } from './languages.js'
import { extractTags } from './tags/index.js'
import { textChunks } from './text-chunks.js'
import type { FileArtifact, LanguageId } from './types.js'

export { EXTRACTOR_VERSION } from './version.js'

export interface Extractor {
  /** Loads a language's grammar; must be awaited before extract() is called for it. */
  prepare(language: LanguageId): Promise<void>
  /** Chunks, symbols, references and imports of one file. */
  extract(source: string, language: LanguageId): FileArtifact
}

/** One extractor per worker thread: it keeps one parser per language. */
export async function createExtractor(): Promise<Extractor> {
  return new TreeSitterExtractor()
}

class TreeSitterExtractor implements Extractor {
  private readonly parsers = new Map<ParsedLanguageId, Promise<Parser>>()
  private readonly ready = new Map<ParsedLanguageId, Parser>()

  async prepare(language: LanguageId): Promise<void> {
    if (language === 'text' || this.ready.has(language)) return
    let pending = this.parsers.get(language)
    if (!pending) {
      pending = loadLanguage(language).then((grammar) => {
        const parser = new Parser()
        parser.setLanguage(grammar)
        return parser
      })
      this.parsers.set(language, pending)
    }
    this.ready.set(language, await pending)
  }

  extract(source: string, language: LanguageId): FileArtifact {
    const lines = new LineIndex(source)
    if (language === 'text') {
      return { language, chunks: textChunks(lines), symbols: [], references: [], imports: [], parseErrors: 0, lineCount: lines.count }
    }
    const parser = this.ready.get(language)
    if (!parser) throw new Error(`extract: prepare('${language}') was not awaited`)
    const tree = parser.parse(parserInput(source, language))
    if (!tree) throw new Error(`extract: the ${language} parser returned no tree`)
    // The tree lives in wasm memory, which is never garbage-collected.
    try {
      const root = tree.rootNode
      const tags = extractTags(tree, language, source)
      return {
        language,
        chunks: chunkTree(root, language, lines, tags),
        symbols: tags.symbols,
        references: tags.references,
        imports: tags.imports,
        parseErrors: root.hasError ? countErrors(root) : 0,
        lineCount: lines.count,
      }
    } finally {
      tree.delete()
    }
  }
}

/** What the parser reads: the source, or for C the source with attribute macros blanked (same offsets). */
export function parserInput(source: string, language: ParsedLanguageId): string {
  return language === 'c' ? blankAttributeMacros(source) : source
}

/** ERROR and MISSING nodes, descending only into subtrees that contain one. */
function countErrors(node: Node): number {
  if (node.isMissing) return 1
  let count = node.isError ? 1 : 0
  for (const child of node.children) if (child.hasError) count += countErrors(child)
  return count
}
