/**
 * Version of what extraction produces; part of the cache key of stored artifacts, so bump it
 * whenever chunks, symbols, references or imports of some input would change. Kept apart from
 * the extractor so that reading the index never loads the parser.
 */
// 6: credentials are found with the gitleaks rules and replaced by same-length markers (records
// of version 5 may hold secrets those rules find, so none of them is reused).
// 7: C attribute macros with arguments before a return type (`__alloc_size(1)`) are blanked, so
// slab.h's kmalloc is a definition; aggregates built before also hold Python imports resolved by
// path suffix rather than from the import roots, or lack the reference rows of files with more
// than 1,024 of them (see RefRows.reset), and a new version rebuilds them.
// 8: pyproject.toml, setup.cfg and setup.py carry the package directories they declare as import
// rows (parse/package-dirs.ts); aggregates built before resolve Python imports without them.
// 9: a git blob's record no longer holds its chunks' text, which git serves (blob-artifact v3,
// index/chunk-text.ts); version 8 records are blob-artifact v2, which a new directory leaves for gc
// rather than every one being read as damaged.
// 10: blob-artifact v4 (the analysed docs a section of their own, `redacted`); version 9 records
// are left for gc as version 8's were.
// 11: a Python decorator is a reference of the scope around the definition it decorates, not of
// the definition (whose parameters hid its names: `@ship.command() def move(ship)`).
export const EXTRACTOR_VERSION = 11
