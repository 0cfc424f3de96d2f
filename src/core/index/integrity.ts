/**
 * Every record an indexed tree depends on, checked: the state, the tree's manifest (and its
 * anchor's, for a delta tree), the aggregates, the overlay, and the blob record of every indexed
 * file and uncommitted file. `status` checks framing and checksums; `verify` also decodes every
 * payload and looks at the caches beside the aggregates (repo map tokens, term associations,
 * search vectors), which their owners rebuild on first use.
 */
import { dirname, join, relative } from 'node:path'
import { CorruptFileError } from '../errors.js'
import { checkFraming, checkRecordFileSync, decodePayload, listDirConfinedSync, readFileConfined, readRecord } from '../store/index.js'
import { aggregateFiles, checkStoredAggregates } from './aggregates.js'
import type { BlobItem } from './build.js'
import type { IndexContext } from './context.js'
import { MANIFEST_KIND, MANIFEST_VERSION, type TreeManifest } from './manifest.js'
import { OVERLAY_KIND, OVERLAY_VERSION, type Overlay } from './overlay.js'
import { plural } from './repairs.js'
import { recordItems } from './repair.js'
import { STATE_KIND, STATE_VERSION, type IndexState } from './state.js'

/** What `coderag status` reports about the records of the indexed tree. */
export interface IndexIntegrity {
  /**
   * True when every record the indexed tree needs is present and passes its checks (framing and
   * checksum; `coderag verify` also decodes each). False until a query, `coderag sync` or
   * `coderag verify` has repaired what `problems` lists.
   */
  complete: boolean
  /** One line per problem: the file under `.vlt/` (`.vlt/objects` for blob records) and what is wrong with it. */
  problems: string[]
}

export interface Problem {
  /** Under `.vlt/`, as the user sees it: `.vlt/trees/…/bm25.mpk`, `.vlt/objects` for blob records. */
  path: string
  problem: string
}

export interface Inspection {
  problems: Problem[]
  /** The tree's manifest when readable. */
  manifest: TreeManifest | null
  /** The tree its aggregates derive from, when its manifest is readable. */
  anchor: TreeManifest | null
  missingRecords: BlobItem[]
  damagedRecords: BlobItem[]
  /**
   * A part of the aggregates fails its checks or does not decode (`decode` only): rebuilt by verify.
   * Loading alone no longer finds all damage — the BM25 index and the symbol table are opened, their
   * blocks checked when a query reads them — so whole-file damage must be repaired here.
   */
  damagedAggregates: boolean
  /** Cache records beside the aggregates that fail their checks (`caches` only). */
  damagedCaches: string[]
  /** How many records were read: blob records, and the others. */
  checked: { blobRecords: number; records: number }
}

const CORE_FILES = new Set(['manifest.mpk', 'bm25.mpk', 'symbols.mpk', 'graph.mpk'])

/** The integrity part of `coderag status`: framing and checksums of every record of `tree` (null: nothing indexed). */
export async function inspectIndex(ctx: IndexContext, tree: string | null): Promise<IndexIntegrity> {
  const { problems } = await inspectTree(ctx, tree, { decode: false, caches: false })
  return { complete: problems.length === 0, problems: problems.map(({ path, problem }) => `${path}: ${problem}`) }
}

/** Reads every record of `tree`'s index; `decode` unpacks each payload too, `caches` checks the caches beside the aggregates. */
/** A path under `.vlt/` as problems name it: `.vlt/…` (`vlt/…` in a bare repository's git dir). */
export function shownPath(ctx: IndexContext, path: string): string {
  return relative(dirname(ctx.paths.root), path)
}

export async function inspectTree(ctx: IndexContext, tree: string | null, how: { decode: boolean; caches: boolean }): Promise<Inspection> {
  const shown = (path: string): string => shownPath(ctx, path)
  const result: Inspection = { problems: [], manifest: null, anchor: null, missingRecords: [], damagedRecords: [], damagedAggregates: false, damagedCaches: [], checked: { blobRecords: 0, records: 0 } }
  const note = (path: string, problem: string): void => void result.problems.push({ path: shown(path), problem })
  /** The record, undefined when absent, null when damaged (noted). */
  const read = async <T>(path: string, kind: string, version: number): Promise<T | null | undefined> => {
    result.checked.records++
    try {
      return await readRecord<T>(path, kind, version)
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      note(path, error.reason)
      return null
    }
  }

  const state = await read<IndexState>(ctx.paths.state, STATE_KIND, STATE_VERSION)
  if (!tree) return result
  if (state === undefined) note(ctx.paths.state, 'missing')
  const manifest = await read<TreeManifest>(ctx.paths.treeManifest(tree), MANIFEST_KIND, MANIFEST_VERSION)
  if (manifest === undefined) note(ctx.paths.treeManifest(tree), 'missing')
  if (!manifest) return result
  result.manifest = manifest
  const anchor = manifest.aggregatesTree === tree ? manifest : await read<TreeManifest>(ctx.paths.treeManifest(manifest.aggregatesTree), MANIFEST_KIND, MANIFEST_VERSION)
  if (anchor === undefined) note(ctx.paths.treeManifest(manifest.aggregatesTree), 'missing')
  result.anchor = anchor ?? null
  if (anchor) inspectAggregates(ctx.paths.treeDir(anchor.treeHash), how.decode, result, note)

  const overlay = await read<Overlay>(ctx.paths.overlay, OVERLAY_KIND, OVERLAY_VERSION)
  const items = recordItems(manifest)
  if (overlay?.headTree === tree) {
    for (const file of overlay.files) if (file.contentHash && !file.skipped) items.push({ path: file.path, blob: file.contentHash, language: file.language })
  }
  const records = ctx.blobs.inspect(items, how.decode)
  result.checked.blobRecords = items.length
  for (const [path, reason] of ctx.blobs.damagedFiles) note(path, reason)
  result.missingRecords = records.missing
  result.damagedRecords = records.damaged.map(({ key }) => key)
  const lost = [records.missing.length > 0 ? `${plural(records.missing.length, 'blob record')} missing` : '', records.damaged.length > 0 ? `${plural(records.damaged.length, 'blob record')} damaged (${records.damaged[0]!.error.message})` : '']
  if (lost.some(Boolean)) note(ctx.paths.objects, lost.filter(Boolean).join(', '))

  if (how.caches) {
    for (const dir of new Set([ctx.paths.treeDir(tree), ctx.paths.treeDir(manifest.aggregatesTree)])) {
      for (const name of listRecords(dir)) {
        if (CORE_FILES.has(name)) continue
        const path = join(dir, name)
        result.checked.records++
        try {
          const bytes = await readFileConfined(path)
          if (bytes === undefined) continue
          const frame = checkFraming(bytes, path)
          if (how.decode) decodePayload(frame, path)
        } catch (error) {
          if (!(error instanceof CorruptFileError)) throw error
          note(path, `${error.reason} (a cache, rebuilt on first use)`)
          result.damagedCaches.push(path)
        }
      }
    }
  }
  return result
}

function inspectAggregates(dir: string, decode: boolean, result: Inspection, note: (path: string, problem: string) => void): void {
  let sound = true
  for (const { path, kind, version } of aggregateFiles(dir)) {
    result.checked.records++
    try {
      checkRecordFileSync(path, kind, version)
    } catch (error) {
      if (!(error instanceof CorruptFileError)) throw error
      note(path, error.reason)
      sound = false
    }
  }
  if (!sound) result.damagedAggregates = decode
  if (!decode || !sound) return
  try {
    checkStoredAggregates(dir)
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    note(error.path, error.reason)
    result.damagedAggregates = true
  }
}

/** The record files of a tree's directory (temp files of writes in progress excluded). */
function listRecords(dir: string): string[] {
  return listDirConfinedSync(dir).filter((name) => name.endsWith('.mpk'))
}
