import { Language, Parser } from 'web-tree-sitter'
import { grammarWasmPath, type ParsedLanguageId } from './languages.js'

// Kept apart from languages.ts so that choosing files (every command) does not load tree-sitter.

let parserReady: Promise<void> | undefined
const loaded = new Map<ParsedLanguageId, Promise<Language>>()

/** Loads (once per thread) the tree-sitter runtime and a grammar. */
export function loadLanguage(language: ParsedLanguageId): Promise<Language> {
  parserReady ??= Parser.init()
  let pending = loaded.get(language)
  if (!pending) {
    const wasm = grammarWasmPath(language)
    pending = parserReady.then(() => Language.load(wasm))
    loaded.set(language, pending)
  }
  return pending
}
