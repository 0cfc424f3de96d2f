import { Parser, type Node } from 'web-tree-sitter'
import { blankAttributeMacros } from './c-attribute-macros.js'
import { chunkTree, LineIndex } from './chunk/index.js'
import { loadLanguage } from './grammars.js'
import { LimitWatch, type ParseLimits } from './limits.js'
import type { ParsedLanguageId } from './languages.js'
import { extractTags } from './tags/index.js'
import { tagsQuery } from './tags/query.js'
import { setupPyPackageDirs } from './package-dirs.js'
import { textArtifact } from './text-chunks.js'
import type { FileArtifact, LanguageId } from './types.js'

export { EXTRACTOR_VERSION } from './version.js'

export interface Extractor {
  /** Loads a language's grammar and compiles its tags query (once per thread, outside any file's bounds); must be awaited before extract() is called for it. */
  prepare(language: LanguageId): Promise<void>
  /**
   * Chunks, symbols, references and imports of one file. Throws ParseLimitExceeded when the parse
   * or the tags query goes past `limits`: the caller then indexes the file as text (textArtifact).
   */
  extract(source: string, language: LanguageId, limits?: ParseLimits): FileArtifact
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
        tagsQuery(grammar, language)
        return parser
      })
      this.parsers.set(language, pending)
    }
    this.ready.set(language, await pending)
  }

  extract(source: string, language: LanguageId, limits?: ParseLimits): FileArtifact {
    if (language === 'text') return textArtifact(source, language)
    const parser = this.ready.get(language)
    if (!parser) throw new Error(`extract: prepare('${language}') was not awaited`)
    const watch = limits && new LimitWatch(limits)
    const tree = parser.parse(parserInput(source, language), null, watch && { progressCallback: watch.check })
    if (!tree) {
      // A cancelled parse would otherwise be resumed by the next one.
      parser.reset()
      watch?.verify()
      throw new Error(`extract: the ${language} parser returned no tree`)
    }
    const lines = new LineIndex(source)
    // The tree lives in wasm memory, which is never garbage-collected.
    try {
      const root = tree.rootNode
      const tags = extractTags(tree, language, source, watch)
      return {
        language,
        chunks: chunkTree(root, language, lines, tags),
        symbols: tags.symbols,
        references: tags.references,
        imports: language === 'python' ? [...tags.imports, ...setupPyPackageDirs(source)] : tags.imports,
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
