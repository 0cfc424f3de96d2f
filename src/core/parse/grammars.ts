import { Language, Parser } from 'web-tree-sitter'
import { grammarWasmPath, type ParsedLanguageId } from './languages.js'

// Kept apart from languages.ts so that choosing files (every command) does not load tree-sitter.

/**
 * The part of web-tree-sitter's emscripten module that RawMatches reads directly. Emscripten
 * fills in the options object given to Parser.init: its exports and its memory views.
 */
export interface WasmBinding {
  HEAP32: Int32Array
  _ts_init(): number
  _ts_query_matches_wasm(...args: number[]): void
  _ts_node_end_index_wasm(tree: number): number
  _ts_node_end_point_wasm(tree: number): void
  _free(address: number): void
  /** Address of the buffer web-tree-sitter passes nodes and results through (ts_init returns the same static buffer each time). */
  transferBuffer: number
  /** Called by the running query every so many steps; true stops it (what `Query.matches` sets from its `progressCallback`). */
  currentQueryProgressCallback: (() => boolean) | null
}

const binding = {} as WasmBinding
let parserReady: Promise<void> | undefined
const loaded = new Map<ParsedLanguageId, Promise<Language>>()

/** Loads (once per thread) the tree-sitter runtime and a grammar. */
export function loadLanguage(language: ParsedLanguageId): Promise<Language> {
  parserReady ??= Parser.init(binding).then(() => {
    // web-tree-sitter keeps the first module a process creates and ignores later options.
    if (typeof binding._ts_init !== 'function') throw new Error('tree-sitter: web-tree-sitter was already initialised by other code in this thread')
    // The match buffer is read as native-endian ints; web-tree-sitter writes little-endian.
    if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('tree-sitter: big-endian platforms are not supported')
    binding.transferBuffer = binding._ts_init()
  })
  let pending = loaded.get(language)
  if (!pending) {
    const wasm = grammarWasmPath(language)
    pending = parserReady.then(() => Language.load(wasm))
    loaded.set(language, pending)
  }
  return pending
}

/** Bytes of wasm memory this thread's tree-sitter runtime holds (0 before it is loaded); it only ever grows. */
export function wasmMemoryBytes(): number {
  return binding.HEAP32?.buffer.byteLength ?? 0
}

/** The runtime's module once loadLanguage has resolved. */
export function wasmBinding(): WasmBinding {
  if (binding.transferBuffer === undefined) throw new Error('tree-sitter: wasmBinding() before loadLanguage()')
  return binding
}
