/**
 * Version of what extraction produces; part of the cache key of stored artifacts, so bump it
 * whenever chunks, symbols, references or imports of some input would change. Kept apart from
 * the extractor so that reading the index never loads the parser.
 */
export const EXTRACTOR_VERSION = 5
