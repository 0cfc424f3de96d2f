/**
 * What extraction produces for one file's content. Stored once per (blob hash, extractor version)
 * under `.vlt/`, so every field here must be derivable from the file's bytes and language alone —
 * never from its path or the rest of the tree (renames must reuse the artifact). Import
 * resolution to repo paths therefore happens later, per tree.
 */

export type LanguageId =
  | 'python' | 'typescript' | 'tsx' | 'javascript' | 'go' | 'rust' | 'java' | 'c' | 'cpp' | 'ruby'
  /** Any other text file: line-window chunks, no symbols. */
  | 'text'

export type ChunkKind = 'function' | 'method' | 'class' | 'module' | 'block'

export type SymbolKind =
  | 'function' | 'method' | 'class' | 'interface' | 'struct' | 'enum' | 'trait' | 'type'
  | 'module' | 'constant' | 'variable' | 'field' | 'macro' | 'namespace'

export interface Chunk {
  kind: ChunkKind
  /** Innermost symbol the chunk is about ('' for module-level glue). */
  name: string
  /** e.g. `Class.method`; equals name for top-level symbols. */
  qualifiedName: string
  language: LanguageId
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  /** Import statements whose bound names the chunk uses, verbatim, newline-joined. */
  imports: string
  /** Header line(s) of the enclosing class/impl/struct for methods, '' otherwise. */
  classContext: string
  signature: string
  decorators: string
  docstring: string
  /** The chunk's source text. */
  body: string
  /** Approximate tokens of the enriched text (imports + classContext + body). */
  tokenCount: number
}

export interface SymbolDef {
  name: string
  qualifiedName: string
  kind: SymbolKind
  /** 1-based. */
  line: number
  endLine: number
  /** 0-based column of the name. */
  column: number
  signature: string
  /** Qualified name of the enclosing definition ('' at top level). */
  scope: string
}

/** `doc`: a name a documentation comment links to (`{@link Name}`, `@throws {Type}`). */
export type ReferenceKind = 'call' | 'reference' | 'type' | 'inherit' | 'import' | 'doc'

export interface SymbolRef {
  name: string
  /** 1-based. */
  line: number
  /** 0-based. */
  column: number
  kind: ReferenceKind
  /** Qualified name of the innermost enclosing definition ('' at top level). */
  enclosing: string
  /** For `obj.name(...)`/`pkg.Name`: the text of the receiver/qualifier, when there is one. */
  receiver?: string
}

export interface ImportRef {
  /** Module specifier as written: `./util`, `os.path`, `github.com/x/y`, `std::io`, `stdio.h`. */
  module: string
  /** Imported names (`*` for wildcard); empty when the whole module is bound. */
  names: Array<{ name: string; alias?: string }>
  /** Local name the module itself is bound to, if any (`import numpy as np` → `np`). */
  alias?: string
  line: number
  /** e.g. `#include "x.h"` (local) vs `<x.h>` (system); relative JS/Python imports. */
  relative: boolean
}

export interface FileArtifact {
  language: LanguageId
  chunks: Chunk[]
  symbols: SymbolDef[]
  references: SymbolRef[]
  imports: ImportRef[]
  /** Tree-sitter reported ERROR/MISSING nodes; the artifact is still usable (best effort). */
  parseErrors: number
  lineCount: number
}
