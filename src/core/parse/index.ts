/** Per-file extraction: one parse, then symbols, references, imports and chunks from that tree. */
export { createExtractor, EXTRACTOR_VERSION, type Extractor } from './extract.js'
export { loadLanguage, wasmMemoryBytes } from './grammars.js'
export { ParseLimitExceeded, type ParseBound, type ParseLimits } from './limits.js'
export { textArtifact } from './text-chunks.js'
export { languageForPath, PARSED_LANGUAGES, type ParsedLanguageId } from './languages.js'
export type * from './types.js'
