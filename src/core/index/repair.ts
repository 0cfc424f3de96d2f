/**
 * Making a tree's index whole again from what it derives from: a missing or damaged manifest is
 * rebuilt from git (and the blob records), damaged aggregates from the blob records, missing blob
 * records from git. Init, sync, a query's context and verify call it when their checks fail; each
 * step notes what it found and did in the context's repairs, which the caller reports in one line.
 */
import { existsSync } from 'node:fs'
import { CorruptFileError } from '../errors.js'
import type { BlobItem, BuildOptions, IndexedTree } from './build.js'
import { anchorOf, buildTree, coldAggregates, isCurrent, largeAggregates, loadIndexedTree, loadManifest, loadTreeAggregatesFile, summarizeBlobs } from './build.js'
import type { IndexContext } from './context.js'
import type { TreeManifest } from './manifest.js'
import type { IndexState } from './state.js'

/** The blob records a tree's index reads: one per indexed file (a skipped file has none to read). */
export function recordItems(manifest: TreeManifest): BlobItem[] {
  return manifest.files.filter((file) => !file.skipped).map((file) => ({ path: file.path, blob: file.blob, language: file.language }))
}

/**
 * Makes the index of `tree` whole; the caller holds the index lock. A tree never indexed is built
 * as sync would build it.
 */
export async function repairTree(ctx: IndexContext, tree: string, state: IndexState, opts: BuildOptions): Promise<void> {
  const short = tree.slice(0, 12)
  const path = ctx.paths.treeManifest(tree)
  let manifest = await loadManifest(ctx, tree)
  if (!manifest || !isCurrent(ctx, manifest)) {
    // Damaged (noted by loadManifest), or gone although the state names it; else never indexed, or
    // indexed with other settings: built as sync builds it, nothing to report.
    const lost = !manifest && (existsSync(path) || state.treeHash === tree)
    if (lost && !existsSync(path)) ctx.repairs.damaged(new CorruptFileError(path, 'missing'))
    await buildTree(ctx, tree, await nearestTree(ctx, state, tree), opts)
    if (lost) ctx.repairs.rebuilt(`rebuilt the index of tree ${short}`)
    manifest = await loadManifest(ctx, tree)
  } else {
    const anchor = await anchorOf(ctx, manifest)
    if (!anchor) {
      // The tree its aggregates derive from is unusable: store this one's in full.
      await buildTree(ctx, tree, await nearestTree(ctx, state, tree), { ...opts, full: true })
      ctx.repairs.rebuilt(`rebuilt the index of tree ${short} in full`)
      manifest = await loadManifest(ctx, tree)
    } else if (!(await loadTreeAggregatesFile(ctx, anchor.treeHash))) {
      await rebuildAggregates(ctx, anchor, opts)
    }
  }
  if (!manifest) return
  // Records of a damaged pack (or pack index) are lost with it: mend the pack, extract them again.
  ctx.blobs.mendPacks()
  await restoreMissing(ctx, recordItems(manifest), opts)
}

/**
 * The index of `tree` with its aggregates opened, made whole first when it is not (the caller
 * holds the index lock): what init reuses. `whole`: see loadIndexedTree.
 */
export async function loadWholeTreeLocked(ctx: IndexContext, tree: string, state: IndexState, opts: BuildOptions, whole = false): Promise<IndexedTree | null> {
  const indexed = await loadIndexedTree(ctx, tree, opts, whole)
  if (indexed && ctx.blobs.missing(recordItems(indexed.manifest)).length === 0) return indexed
  await repairTree(ctx, tree, state, opts)
  return loadIndexedTree(ctx, tree, opts, whole)
}

/** Extracts again the records among `items` that are missing (noted in the repairs); `readBytes` for working-tree content. */
export async function restoreMissing(ctx: IndexContext, items: BlobItem[], opts: BuildOptions, readBytes?: (item: BlobItem) => Promise<Buffer>): Promise<void> {
  const missing = ctx.blobs.missing(items)
  if (missing.length > 0) await summarizeBlobs(ctx, missing, opts, () => {}, { expected: true, readBytes })
}

/** Rebuilds a tree's stored aggregates (BM25, symbols, graph) from the blob records of its files. */
export async function rebuildAggregates(ctx: IndexContext, manifest: TreeManifest, opts: BuildOptions): Promise<void> {
  const { finishAndSave } = await import('./aggregates.js')
  const aggregates = await coldAggregates(ctx, manifest.treeHash)
  await summarizeBlobs(
    ctx,
    recordItems(manifest),
    opts,
    (item, summary) => {
      if (!summary.skipped) aggregates.addFile(item.path, summary)
    },
    { expected: true },
  )
  await finishAndSave(ctx.paths.treeDir(manifest.treeHash), aggregates, { bm25First: largeAggregates(aggregates) })
  ctx.repairs.rebuilt(`rebuilt the index of tree ${manifest.treeHash.slice(0, 12)} from the blob records`)
}

/** The manifest of the most recently indexed tree other than `target` (which, if indexed, was found unusable). */
export async function nearestTree(ctx: IndexContext, state: IndexState, target: string): Promise<TreeManifest | null> {
  for (const tree of new Set([state.treeHash, ...state.recentTrees])) {
    if (!tree || tree === target) continue
    const manifest = await loadManifest(ctx, tree)
    if (manifest && isCurrent(ctx, manifest)) return manifest
  }
  return null
}
