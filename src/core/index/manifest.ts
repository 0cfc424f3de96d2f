import type { LanguageId } from '../parse/types.js'
import type { ContentSkip, Degraded } from './blob-task.js'

/** One file of an indexed tree: where its artifact is and what became of it. */
export interface ManifestFile {
  path: string
  blob: string
  language: LanguageId
  size: number
  chunks: number
  symbols: number
  parseErrors: number
  lines: number
  skipped?: ContentSkip
  /** Indexed as text windows, not parsed (see Degraded). */
  degraded?: Degraded
}

export interface SkippedCounts {
  binary: number
  tooLarge: number
  minified: number
  invalidUtf8: number
  /** Files with syntax errors: still indexed (best effort), counted so users can look. */
  parseErrors: number
  secret: number
  /** Files of a parsed language indexed as text windows (see Degraded): still indexed, counted by why. */
  parseTimeout: number
  parseMemory: number
  parseCrash: number
  /** Submodules (gitlinks): their files belong to another repository and are not indexed. */
  submodule: number
}

/** What each Degraded reason means, for warnings. */
export const DEGRADED_REASONS: Record<Degraded, string> = {
  parseTimeout: 'the parse went past its time bound ([index] parse_timeout_ms)',
  parseMemory: 'the parse went past its memory bound ([index] parse_memory_mb)',
  parseCrash: 'the parser crashed on it',
}

/** The per-tree record listing every indexed file; aggregates (bm25, symbols, graph) sit beside it. */
export interface TreeManifest {
  treeHash: string
  /** Tree this one was derived from incrementally, null for a cold build. */
  builtFrom: string | null
  /**
   * Tree whose stored aggregates (bm25, symbols, graph) this tree's derive from: itself when they
   * are stored in full, else an anchor that differs from it in a few files (a delta tree).
   */
  aggregatesTree: string
  configFingerprint: string
  extractorVersion: number
  createdAt: string
  /** Graph edges, so that status need not load the aggregates; null for a delta tree. */
  edges: number | null
  files: ManifestFile[]
  /** Paths of the tree's submodules the selection reaches; absent in manifests written before they were listed. */
  submodules?: string[]
}

export const MANIFEST_KIND = 'tree-manifest'
export const MANIFEST_VERSION = 2

export function emptySkipped(): SkippedCounts {
  return { binary: 0, tooLarge: 0, minified: 0, invalidUtf8: 0, parseErrors: 0, secret: 0, parseTimeout: 0, parseMemory: 0, parseCrash: 0, submodule: 0 }
}

export function countSkipped(manifest: Pick<TreeManifest, 'files' | 'submodules'>): SkippedCounts {
  const counts = emptySkipped()
  counts.submodule = manifest.submodules?.length ?? 0
  for (const file of manifest.files) {
    if (file.skipped) counts[file.skipped]++
    else if (file.degraded) counts[file.degraded]++
    else if (file.parseErrors > 0) counts.parseErrors++
  }
  return counts
}

/** Totals of a tree's indexed files (skipped ones excluded): what init, sync and status report. */
export function countIndexed(files: Iterable<ManifestFile>): { files: number; chunks: number; symbols: number; languages: Record<string, number> } {
  const totals = { files: 0, chunks: 0, symbols: 0, languages: {} as Record<string, number> }
  for (const file of files) {
    if (file.skipped) continue
    totals.files++
    totals.chunks += file.chunks
    totals.symbols += file.symbols
    totals.languages[file.language] = (totals.languages[file.language] ?? 0) + 1
  }
  return totals
}
