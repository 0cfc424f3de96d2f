/**
 * A tree's aggregates through the remote cache ([cache] in the user's config): a fresh clone of a
 * commit CI indexed takes the tree's manifest, BM25 index, symbol table and graph as they were
 * stored, instead of building them again from the blob records (a third of a cold 10k-file build),
 * then the blob records the queries read.
 *
 * The entry for a tree (`tree-aggregates/<formats>/<extractor>/<config fingerprint>/<tree>`) names a
 * small bundle record listing the digest of each part; each part is content addressed like a blob
 * record. Nothing is taken on trust beyond the cache's writers: every part must hash to its digest
 * and pass its record checks, and the manifest must describe this very tree under this machine's
 * selection (every path, blob and language, secrets skipped) — anything else is rejected, counted,
 * and the tree built here.
 */
import type { FileHandle } from 'node:fs/promises'
import { silentProgress } from '../cli/progress.js'
import { passesChecks } from '../errors.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import { checkRecordFileSync, decodeRecord, encodeRecord, IncomingFile, openConfined, readFileConfinedSync } from '../store/index.js'
import { keyOf } from './blob-store.js'
import { isCurrent, selectTree, summarizeBlobs, type BlobItem, type BuildOptions, type BuildResult, type Wanted } from './build.js'
import type { IndexContext } from './context.js'
import { countIndexed, countSkipped, MANIFEST_KIND, MANIFEST_VERSION, type TreeManifest } from './manifest.js'
import { takeRemoteRecords } from './remote-records.js'
import { recordItems } from './repair.js'

const BUNDLE_KIND = 'tree-bundle'
const BUNDLE_VERSION = 1
const READ_PART_BYTES = 1 << 20

/** The bundle an entry names: each part's name and the digest of its bytes. */
interface TreeBundle {
  treeHash: string
  parts: Record<string, string>
}

interface Part {
  name: string
  path: string
  kind: string
  version: number
}

/** The files a tree's aggregates are stored in, the manifest last (the one that makes a tree directory a finished build). */
async function partsOf(ctx: IndexContext, treeHash: string): Promise<Part[]> {
  // Loaded here, not at the top: the aggregates' module is heavy and most runs never come this way.
  const { aggregateFiles } = await import('./aggregates.js')
  const name = (path: string): string => path.slice(path.lastIndexOf('/') + 1)
  const aggregates = aggregateFiles(ctx.paths.treeDir(treeHash)).map((file) => ({ ...file, name: name(file.path) }))
  const manifest = ctx.paths.treeManifest(treeHash)
  return [...aggregates, { name: name(manifest), path: manifest, kind: MANIFEST_KIND, version: MANIFEST_VERSION }]
}

/** Everything the parts depend on besides the tree: their formats, the extractor, the selection settings. */
function treeKey(ctx: IndexContext, parts: Part[], treeHash: string): string {
  const formats = parts.map((part) => `${part.kind}.${part.version}`).join('+')
  return `tree-aggregates/${formats}/${EXTRACTOR_VERSION}/${ctx.configFingerprint}/${treeHash}`
}

/**
 * Takes `treeHash`'s aggregates from the remote cache and stores them as a build would, then its
 * blob records (those the cache lacks are extracted). Null when the cache lacks the tree or any part
 * fails its checks: the caller builds it.
 */
export async function takeRemoteTree(ctx: IndexContext, treeHash: string, opts: BuildOptions): Promise<BuildResult | null> {
  const remote = ctx.remote
  if (!remote?.usable) return null
  const started = Date.now()
  const parts = await partsOf(ctx, treeHash)
  let bundle: TreeBundle | undefined
  await remote.get(treeKey(ctx, parts, treeHash), (bytes) => (bundle = decodeBundle(bytes, treeHash, parts)) !== undefined, 'tree')
  if (!bundle) return null

  const selection = await selectTree(ctx, treeHash)
  let manifest: TreeManifest | undefined
  // Each part goes to a file as it arrives, and is checked there: a tree's aggregates are hundreds of megabytes.
  const incoming: IncomingFile[] = []
  try {
    for (const part of parts) incoming.push(new IncomingFile(part.path))
    const taken = await Promise.all(
      parts.map((part, index) => {
        const file = incoming[index]!
        return remote.getContentInto(bundle!.parts[part.name]!, (chunk) => file.write(chunk), () => {
          file.finish()
          if (part.kind !== MANIFEST_KIND) return passesChecks(() => checkRecordFileSync(file.temp, part.kind, part.version)) !== undefined
          manifest = passesChecks(() => decodeRecord<TreeManifest>(readFileConfinedSync(file.temp) ?? Buffer.alloc(0), MANIFEST_KIND, MANIFEST_VERSION, part.path))
          return manifest !== undefined && describesTree(ctx, manifest, treeHash, selection)
        })
      }),
    )
    if (!manifest || taken.includes(false)) return null
    remote.tookTree()
    // In order, the manifest last: a tree directory without one is an unfinished build, ignored.
    for (const file of incoming) await file.place()
  } finally {
    for (const file of incoming) file.discard()
  }

  const extracted = await takeRecords(ctx, recordItems(manifest), opts)
  const { files, chunks, symbols } = countIndexed(manifest.files)
  return {
    treeHash,
    builtFrom: null,
    files,
    chunks,
    symbols,
    edges: manifest.edges,
    skipped: countSkipped(manifest),
    extracted,
    changed: manifest.files.map((file) => file.path),
    aggregatesTree: treeHash,
    durationMs: Date.now() - started,
  }
}

/**
 * The blob records of the tree's files this clone lacks: from the cache, checked by their frame
 * and stored without decoding (the aggregates need no summaries), the rest extracted. Returns the
 * paths extracted.
 */
async function takeRecords(ctx: IndexContext, items: BlobItem[], opts: BuildOptions): Promise<string[]> {
  const sameContent = new Map<string, BlobItem[]>()
  for (const item of ctx.blobs.missing(items)) {
    const key = keyOf(item)
    const group = sameContent.get(key)
    if (group) group.push(item)
    else sameContent.set(key, [item])
  }
  await takeRemoteRecords(ctx, sameContent, opts.progress ?? silentProgress)
  const left = [...sameContent.values()].flat()
  return left.length === 0 ? [] : summarizeBlobs(ctx, left, opts, () => {}, { remoteAsked: true })
}

/**
 * Writes `treeHash`'s stored aggregates back to the cache when the user's config asks for it and
 * the tree has them in full (not a delta on another tree's).
 */
export async function pushRemoteTree(ctx: IndexContext, treeHash: string): Promise<void> {
  const remote = ctx.remote
  if (!remote?.pushing) return
  const parts = await partsOf(ctx, treeHash)
  const key = treeKey(ctx, parts, treeHash)
  // Every init of a CI job that restored .vlt/ comes here: one request instead of reading and hashing the parts again.
  if (await remote.hasEntry(key)) return
  const digests: string[] = []
  // One part at a time, read in parts twice (hashed, then sent): never the tree's aggregates in memory.
  for (const part of parts) {
    const handle = await openConfined(part.path)
    if (!handle) return
    try {
      const { size } = await handle.stat()
      const named = await remote.putContentFrom(size, () => readInParts(handle, size, part.path))
      if (named === undefined) return
      digests.push(named)
    } finally {
      await handle.close()
    }
  }
  const bundle: TreeBundle = { treeHash, parts: Object.fromEntries(parts.map((part, index) => [part.name, digests[index]!])) }
  await remote.put(key, encodeRecord(BUNDLE_KIND, BUNDLE_VERSION, bundle), 'tree')
}

/** The open file's `size` bytes, a fresh buffer a megabyte at a time (the receiver may hold on to each until it is sent). */
async function* readInParts(handle: FileHandle, size: number, path: string): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < size; ) {
    const part = Buffer.allocUnsafe(Math.min(READ_PART_BYTES, size - at))
    const { bytesRead } = await handle.read(part, 0, part.length, at)
    if (bytesRead === 0) throw new Error(`${path} shrank while it was sent`)
    at += bytesRead
    yield part.subarray(0, bytesRead)
  }
}

function decodeBundle(bytes: Buffer, treeHash: string, parts: Part[]): TreeBundle | undefined {
  const bundle = passesChecks(() => decodeRecord<TreeBundle>(bytes, BUNDLE_KIND, BUNDLE_VERSION, `remote cache bundle of tree ${treeHash}`))
  const named = bundle?.parts
  const whole = bundle?.treeHash === treeHash && typeof named === 'object' && named !== null && parts.every((part) => typeof named[part.name] === 'string')
  return whole ? bundle : undefined
}

/**
 * The manifest is of this tree, built with this extractor and selection, with its aggregates in
 * full, and lists exactly the files this machine selects from the tree (same path, blob and
 * language, in tree order; secrets skipped and nothing else presented as one).
 */
function describesTree(ctx: IndexContext, manifest: TreeManifest, treeHash: string, selection: { wanted: Wanted[]; submodules: string[] }): boolean {
  if (manifest.treeHash !== treeHash || manifest.aggregatesTree !== treeHash || !isCurrent(ctx, manifest)) return false
  const { files } = manifest
  if (!Array.isArray(files) || files.length !== selection.wanted.length) return false
  if (JSON.stringify(manifest.submodules) !== JSON.stringify(selection.submodules)) return false
  return selection.wanted.every(({ entry, language, secret }, index) => {
    const file = files[index]!
    return file.path === entry.path && file.blob === entry.blob && file.language === language && (file.skipped === 'secret') === secret
  })
}

