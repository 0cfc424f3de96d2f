import { readWorkingFile, type WorkingChange } from '../git/index.js'
import type { LanguageId } from '../parse/types.js'
import { readRecord, writeRecord } from '../store/index.js'
import { unlessCorrupt } from '../errors.js'
import { summarizeBlobs, type BlobItem, type BuildOptions } from './build.js'
import type { IndexContext } from './context.js'
import type { ContentSkip } from './blob-task.js'

/**
 * Uncommitted work, indexed apart from the committed tree: each dirty file's artifact is stored
 * under its content hash exactly like a blob (so committing it later costs nothing), and queries
 * lay these files over HEAD's aggregates instead of mixing them in.
 */
export interface OverlayFile {
  path: string
  status: 'modified' | 'added' | 'deleted' | 'untracked'
  /** git hash-object of the working-tree content; null when deleted. */
  contentHash: string | null
  language: LanguageId
  chunks: number
  symbols: number
  skipped?: ContentSkip
}

export interface Overlay {
  /** HEAD tree the overlay applies to. */
  headTree: string
  files: OverlayFile[]
}

export const OVERLAY_KIND = 'overlay'
export const OVERLAY_VERSION = 1

/** The overlay record; a damaged one is noted in the repairs and counts as absent (the next sync rewrites it). */
export async function readOverlay(ctx: IndexContext): Promise<Overlay | undefined> {
  return unlessCorrupt(
    () => readRecord<Overlay>(ctx.paths.overlay, OVERLAY_KIND, OVERLAY_VERSION),
    (error) => {
      ctx.repairs.damaged(error)
      return undefined
    },
  )
}

/** Recomputes the overlay from `git status` (`changes`); extracts only content hashes never seen before. */
export async function syncOverlay(ctx: IndexContext, opts: BuildOptions, changes: Promise<WorkingChange[]>): Promise<{ overlay: Overlay; extracted: string[] }> {
  const headTree = ctx.repo.head.tree
  const files: OverlayFile[] = []
  const todo: Array<BlobItem & { index: number }> = []
  for (const change of await changes) {
    const selection = ctx.selectFile(change.path)
    if (!selection.selected) {
      if (selection.reason !== 'secret') continue
      files.push({ path: change.path, status: change.status, contentHash: change.contentHash, language: 'text', chunks: 0, symbols: 0, skipped: 'secret' })
      continue
    }
    const file: OverlayFile = { path: change.path, status: change.status, contentHash: change.contentHash, language: selection.language, chunks: 0, symbols: 0 }
    if (change.contentHash) todo.push({ path: change.path, blob: change.contentHash, language: selection.language, index: files.length })
    files.push(file)
  }
  const extracted = await summarizeBlobs(
    ctx,
    todo,
    opts,
    (item, summary) => {
      const file = files[item.index]!
      if (summary.skipped) file.skipped = summary.skipped
      else {
        file.chunks = summary.chunkCount
        file.symbols = summary.symbols.length
      }
    },
    { readBytes: (item) => readWorkingFile(ctx.repo, item.path) },
  )
  const overlay: Overlay = { headTree, files }
  // A no-change sync writes nothing: the record is only replaced when the overlay differs.
  const previous = await unlessCorrupt(
    () => readRecord<Overlay>(ctx.paths.overlay, OVERLAY_KIND, OVERLAY_VERSION),
    (error) => {
      ctx.repairs.damaged(error)
      ctx.repairs.rebuilt('rebuilt the overlay of uncommitted changes')
      return undefined
    },
  )
  if (!previous || JSON.stringify(previous) !== JSON.stringify(overlay)) await writeRecord(ctx.paths.overlay, OVERLAY_KIND, OVERLAY_VERSION, overlay)
  return { overlay, extracted }
}
