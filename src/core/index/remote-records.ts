/**
 * Blob records through the remote cache ([cache] in the user's config, src/core/cache): what the
 * local store lacks is asked of the cache before anything is extracted, and what this run extracted
 * is written back when the user turned write-back on (CI). Only committed blobs take part: a
 * working-tree file's content is this machine's own business.
 */
import type { Progress } from '../cli/progress.js'
import { CACHE_CONNECTIONS } from '../cache/index.js'
import { CorruptFileError } from '../errors.js'
import { InFlightLimit } from '../in-flight.js'
import { EXTRACTOR_VERSION } from '../parse/version.js'
import { checkRecord } from '../store/index.js'
import { keyOf, PACK_MIN_RECORDS, type BlobKey } from './blob-store.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION, decodeBlobRecord, type BlobRecord } from './blob-task.js'
import type { IndexContext } from './context.js'

/** Requests in flight: twice the connections, so that one waits on the network while another is read. */
const IN_FLIGHT = CACHE_CONNECTIONS * 2

/**
 * What a record depends on besides its content: the record format, the extractor, and the size past
 * which a file is skipped. Two machines agreeing on these make the same record from the same blob.
 */
function remoteKey(ctx: IndexContext, key: BlobKey): string {
  return `${BLOB_RECORD_KIND}/${BLOB_RECORD_VERSION}/${EXTRACTOR_VERSION}/${ctx.config.index.maxFileBytes}/${keyOf(key)}`
}

export interface RemoteRecord {
  /** Undefined when only the record's frame was checked (see takeRemoteRecords). */
  record: BlobRecord | undefined
  encoded: Buffer
}

/**
 * The records of these contents (by content key) the remote cache has and that pass every check;
 * one tick each. `decode: false` checks the frame only (checksum, kind, format version): for a
 * caller that stores the record and reads it later, when a damaged payload is found and rebuilt.
 */
async function fetchRemoteRecords(ctx: IndexContext, items: Map<string, BlobKey>, decode: boolean, progress: Progress): Promise<Map<string, RemoteRecord>> {
  const found = new Map<string, RemoteRecord>()
  const remote = ctx.remote
  if (!remote?.usable || items.size === 0) return found
  const queue = [...items]
  const worker = async (): Promise<void> => {
    for (let next = queue.pop(); next && remote.usable; next = queue.pop()) {
      const [contentKey, key] = next
      let record: BlobRecord | undefined
      const encoded = await remote.get(remoteKey(ctx, key), (bytes) => {
        if (!decode) return framed(bytes, contentKey)
        record = decodeChecked(bytes, contentKey)
        return record !== undefined
      })
      if (encoded) found.set(contentKey, { record, encoded })
      progress.tick()
    }
  }
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, items.size) }, worker))
  return found
}

/** Records asked of the remote cache at a time: the decoded ones wait here until stored and used. */
const REMOTE_BATCH = 512

/**
 * Takes from the remote cache the records of `sameContent` (content key → the items with that
 * content) it has: stored here as if extracted (packed when many), handed to `use` in the order of
 * `sameContent` (the tree's, as local hits are), and removed from `sameContent`. Without `use`, the
 * records are only stored, their payload not decoded. Asked in batches, so memory holds one batch
 * of records, not the tree's. Returns their content keys.
 */
export async function takeRemoteRecords<T extends BlobKey>(
  ctx: IndexContext,
  sameContent: Map<string, T[]>,
  progress: Progress,
  use?: (group: T[], record: BlobRecord) => void,
): Promise<Set<string>> {
  const taken = new Set<string>()
  const wanted = [...sameContent]
  const pack = ctx.blobs.storing && wanted.length >= PACK_MIN_RECORDS ? ctx.blobs.packWriter() : undefined
  progress.start(wanted.length, 'reading the remote cache')
  try {
    for (let start = 0; start < wanted.length && ctx.remote!.usable; start += REMOTE_BATCH) {
      const batch = wanted.slice(start, start + REMOTE_BATCH)
      const fetched = await fetchRemoteRecords(ctx, new Map(batch.map(([key, group]) => [key, group[0]!])), use !== undefined, progress)
      for (const [key, group] of batch) {
        const found = fetched.get(key)
        if (!found) continue
        sameContent.delete(key)
        taken.add(key)
        if (pack) pack.add(key, found.encoded)
        else ctx.blobs.writeLoose(group[0]!, found.encoded)
        if (use) use(group, found.record!)
      }
    }
    pack?.finish()
  } finally {
    pack?.abort()
    progress.stop()
  }
  return taken
}

/** Writes records this run extracted back to the cache, when the user's config asks for it. */
export class RemoteWriteBack {
  // A PUT holds its record until answered: the bound is what keeps memory flat when extracting outpaces the cache.
  private readonly puts = new InFlightLimit(IN_FLIGHT)

  constructor(private readonly ctx: IndexContext) {}

  get active(): boolean {
    return this.ctx.remote?.pushing ?? false
  }

  /** Resolves once the record's PUT started (RemoteCache.put never rejects: a failure drops the cache for the run). */
  async add(key: BlobKey, encoded: Uint8Array): Promise<void> {
    if (!this.active) return
    const remote = this.ctx.remote!
    await this.puts.start(() => remote.put(remoteKey(this.ctx, key), encoded))
  }

  async finish(): Promise<void> {
    await this.puts.drain()
  }
}

/** A record as a cache sent it: whole (checksum), of our kind and format version. */
function framed(bytes: Buffer, contentKey: string): boolean {
  try {
    checkRecord(bytes, BLOB_RECORD_KIND, BLOB_RECORD_VERSION, `remote cache record ${contentKey}`)
    return true
  } catch (error) {
    if (error instanceof CorruptFileError) return false
    throw error
  }
}

/** A record as a cache sent it: whole, of our kind and format version, decodable; undefined otherwise. */
function decodeChecked(bytes: Buffer, contentKey: string): BlobRecord | undefined {
  try {
    return decodeBlobRecord(bytes, `remote cache record ${contentKey}`)
  } catch (error) {
    if (error instanceof CorruptFileError) return undefined
    throw error
  }
}
