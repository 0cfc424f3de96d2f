/**
 * `coderag verify`: reads every record of HEAD's index, payloads decoded (see inspectTree), repairs
 * what it finds (records extracted again from git or the working tree, aggregates and manifests
 * rebuilt, damaged caches removed for their owners to rebuild), then reads everything again to say
 * whether the index is whole.
 */
import { removeConfinedSync, withLock } from '../store/index.js'
import type { BuildOptions } from './build.js'
import { anchorOf, loadManifest } from './build.js'
import { openIndexContext, type IndexContext } from './context.js'
import { readWorkingContent } from './heal.js'
import { commitsContext, lockOptions, syncIndexIn } from './index.js'
import { inspectCommitIndex, syncCommits } from '../commits/index.js'
import { inspectTree, shownPath, type Inspection } from './integrity.js'
import { readOverlay } from './overlay.js'
import { rebuildAggregates, repairTree, restoreMissing } from './repair.js'
import { readState } from './state.js'

export interface VerifyResult {
  /** HEAD's tree, whose index was checked. */
  treeHash: string
  /** Records read (the second reading after repairs not counted): blob records, and the others (state, manifests, aggregates, overlay, caches). */
  checked: { blobRecords: number; records: number }
  /** What was missing or damaged: the file under `.vlt/` (`.vlt/objects` for blob records), what was wrong, whether it is repaired. */
  problems: Array<{ path: string; problem: string; repaired: boolean }>
  /** Every record of HEAD's index present and sound once the repairs are done. */
  whole: boolean
  durationMs: number
}

const DEEP = { decode: true, caches: true }

export async function verifyIndex(cwd: string, opts: BuildOptions): Promise<VerifyResult> {
  const started = Date.now()
  const ctx = await openIndexContext(cwd, { syncing: true })
  const tree = ctx.repo.head.tree
  const before = await inspectTree(ctx, tree, DEEP)
  // HEAD not indexed yet (a new commit, a first run) is not damage: the sync below indexes it.
  const named = (await readState(ctx.paths, ctx.repairs)).treeHash === tree
  const found = before.problems.filter((problem) => named || problem.path !== shownPath(ctx, ctx.paths.treeManifest(tree)) || problem.problem !== 'missing')
  const repairing = found.length > 0 || !named
  if (repairing) await repair(ctx, before, opts)
  // Read afresh: this context remembers the damage it saw.
  const after = repairing ? await inspectTree(await openIndexContext(cwd), tree, DEEP) : before
  const problems = found.map(({ path, problem }) => ({ path, problem, repaired: !after.problems.some((left) => left.path === path) }))
  for (const { path, problem } of after.problems) if (!found.some((seen) => seen.path === path)) problems.push({ path, problem, repaired: false })
  const history = await verifyCommitIndex(ctx, opts)
  problems.push(...history.problems)
  const checked = { ...before.checked, records: before.checked.records + history.records }
  return { treeHash: tree, checked, problems, whole: after.problems.length === 0 && history.whole, durationMs: Date.now() - started }
}

/**
 * The commit index of HEAD's history: the index record and every pack, decoded; damaged packs are
 * read from git again (the repair above has synced it to HEAD already).
 */
async function verifyCommitIndex(ctx: IndexContext, opts: BuildOptions): Promise<{ records: number; problems: VerifyResult['problems']; whole: boolean }> {
  const before = await inspectCommitIndex(ctx.paths)
  if (before.problems.length > 0) {
    await withLock(ctx.paths.root, () => syncCommits(commitsContext(ctx), { warn: () => {}, distrust: new Set(before.damagedPacks), force: before.damagedPacks.length === 0 }), lockOptions(opts))
  }
  const after = before.problems.length > 0 ? await inspectCommitIndex(ctx.paths) : before
  const problems = before.problems.map(({ path, problem }) => ({ path: shownPath(ctx, path), problem, repaired: !after.problems.some((left) => left.path === path) }))
  return { records: before.records, problems, whole: after.problems.length === 0 }
}

async function repair(ctx: IndexContext, found: Inspection, opts: BuildOptions): Promise<void> {
  // Brings the index to HEAD: rewrites a damaged state or overlay, builds what is not indexed.
  await syncIndexIn(ctx, opts, { report: false })
  await withLock(ctx.paths.root, async () => {
    const tree = ctx.repo.head.tree
    // Damaged copies go first, so that the records count as missing and are extracted again.
    ctx.blobs.dropPackedRecords(found.damagedRecords)
    for (const key of found.damagedRecords) removeConfinedSync(ctx.blobs.loosePath(key))
    await repairTree(ctx, tree, await readState(ctx.paths, ctx.repairs), opts)
    const overlay = await readOverlay(ctx)
    if (overlay?.headTree === tree) {
      const dirty = overlay.files.flatMap((file) => (file.contentHash && !file.skipped ? [{ path: file.path, blob: file.contentHash, language: file.language }] : []))
      await restoreMissing(ctx, dirty, opts, (item) => readWorkingContent(ctx.repo, item.path, item.blob))
    }
    const manifest = await loadManifest(ctx, tree)
    const anchor = manifest && (await anchorOf(ctx, manifest))
    if (found.damagedAggregates && anchor) await rebuildAggregates(ctx, anchor, opts)
    // Caches beside the aggregates are their owners' to rebuild, on first use.
    for (const path of found.damagedCaches) removeConfinedSync(path)
  }, lockOptions(opts))
}
