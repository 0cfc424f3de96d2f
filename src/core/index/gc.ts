import { lstat } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { UsageError } from '../errors.js'
import type { LanguageId } from '../parse/types.js'
import { listDirConfined, listFilesConfined, removeConfined, sweepTempFiles, withLock } from '../store/index.js'
import { keyOf } from './blob-store.js'
import { loadManifest } from './build.js'
import { openIndexContext } from './context.js'
import { readOverlay } from './overlay.js'
import { readState, writeState } from './state.js'

export interface GcResult {
  /** Trees whose index is kept: the most recent ones, and the anchors their aggregates derive from. */
  keptTrees: string[]
  removedTrees: number
  removedBlobRecords: number
  removedTempFiles: number
  /** Bytes of the files removed (each measured before removing it), less what rewritten packs take again. */
  freedBytes: number
  durationMs: number
}

/**
 * Prunes the index: keeps the `keep` most recently indexed trees (the current one always), the
 * anchors of delta trees among them, and the blob artifacts those trees and the working-tree
 * overlay use; removes everything else. Runs under the index lock, so no build races it; queries
 * need no lock because the current tree, its anchor and their artifacts are never removed.
 * Listing and deleting are confined (store/confine.ts): `trees/` and `objects/` must be real
 * folders inside `.vlt/`, and a link found in them is removed itself, never followed.
 */
export async function collectGarbage(cwd: string, keep: number, warn: (message: string) => void): Promise<GcResult> {
  if (!Number.isInteger(keep) || keep < 1) throw new UsageError(`--keep must be a whole number of at least 1 (got ${keep})`)
  const started = Date.now()
  const ctx = await openIndexContext(cwd)
  const result = await withLock(ctx.paths.root, async () => {
    const state = await readState(ctx.paths, ctx.repairs)
    const recent = [...new Set([state.treeHash, ...state.recentTrees].filter((tree): tree is string => tree !== null))].slice(0, keep)
    // The current tree is kept even when its manifest is damaged: the next sync rebuilds it in place.
    const kept = new Set<string>(state.treeHash ? [state.treeHash] : [])
    /** Live records by key (packed) and by path (loose); loose records of other extractor versions are never read again. */
    const liveRecords = new Set<string>()
    const liveLoose = new Set<string>()
    const keepRecord = (blob: string, language: LanguageId) => {
      liveRecords.add(keyOf({ blob, language }))
      liveLoose.add(ctx.blobs.loosePath({ blob, language }))
    }
    for (const tree of recent) {
      const manifest = await loadManifest(ctx, tree)
      if (!manifest) continue
      kept.add(tree)
      kept.add(manifest.aggregatesTree)
      for (const file of manifest.files) if (!file.skipped) keepRecord(file.blob, file.language)
      if (manifest.aggregatesTree !== tree) {
        const anchor = await loadManifest(ctx, manifest.aggregatesTree)
        for (const file of anchor?.files ?? []) if (!file.skipped) keepRecord(file.blob, file.language)
      }
    }
    const overlay = await readOverlay(ctx)
    for (const file of overlay?.files ?? []) if (file.contentHash && !file.skipped) keepRecord(file.contentHash, file.language)

    let freedBytes = 0
    let removedTrees = 0
    for (const tree of await listDirConfined(ctx.paths.trees)) {
      if (kept.has(tree)) continue
      freedBytes += await sizeOf(join(ctx.paths.trees, tree))
      await removeConfined(join(ctx.paths.trees, tree), { recursive: true })
      removedTrees++
    }
    let removedBlobRecords = 0
    const packs = ctx.blobs.packsDir
    for (const path of await listFilesConfined(ctx.paths.objects)) {
      if (liveLoose.has(path) || path.endsWith('.vlt-tmp') || path.startsWith(packs + sep)) continue
      const bytes = await sizeOf(path)
      await removeConfined(path).catch(() => {})
      freedBytes += bytes
      removedBlobRecords++
    }
    const pruned = ctx.blobs.prunePacks(liveRecords)
    removedBlobRecords += pruned.removed
    freedBytes += pruned.freedBytes
    // A pack a killed build was writing is one of these: it can be the largest thing gc frees.
    const removedTempFiles = await sweepTempFiles(ctx.paths.root, { removed: (bytes) => (freedBytes += bytes) })
    await writeState(ctx.paths, { ...state, recentTrees: state.recentTrees.filter((tree) => kept.has(tree)) })
    return { keptTrees: [...kept], removedTrees, removedBlobRecords, removedTempFiles, freedBytes, durationMs: Date.now() - started }
  }, { waitMs: 120_000, onWait: (holder) => warn(`waiting for another git-vlt run (${holder}) to finish…`) })
  // Damaged files of trees it did not keep went with them; anything else is the next run's to rebuild.
  ctx.repairs.flush(warn)
  return result
}

/** Bytes of a file or a folder's files; a link counts as itself (never followed: it may point at `/`). */
async function sizeOf(path: string): Promise<number> {
  try {
    const info = await lstat(path)
    if (!info.isDirectory()) return info.size
    let total = 0
    for (const file of await listFilesConfined(path)) total += (await lstat(file)).size
    return total
  } catch {
    return 0
  }
}
