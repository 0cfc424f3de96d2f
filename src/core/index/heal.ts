/**
 * Extracting a blob record again at the moment a reader finds it missing or damaged. Readers of
 * chunk text (search snippets, references, the oracle's evidence) are synchronous all the way up,
 * while extraction is not (git, the parser's wasm): so the work runs on a thread of its own and
 * this one waits for it (Atomics.wait), then takes the answer off the port synchronously. It
 * happens only when something under `.vlt/objects` was lost, once per damaged record.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads'
import { VltError } from '../errors.js'
import { readWorkingFile, type BlobReader, type Repo } from '../git/index.js'
import { runInRepo } from '../git/repo.js'
import type { LanguageId } from '../parse/types.js'
import { startWorker } from './pool.js'

export interface HealItem {
  blob: string
  language: LanguageId
  /** Where the content is in the working tree (see RecordOrigin in blob-store.ts). */
  path?: string
  /** Only there: an uncommitted file of the overlay. */
  dirty?: boolean
}

export type Healed = { encoded: Uint8Array } | { error: string }

/** What the thread is given (see heal-worker.ts). */
export interface HealJob {
  repo: Repo
  items: HealItem[]
  maxFileBytes: number
  port: MessagePort
  /** Set to 1 (and notified) once the answer is on the port. */
  signal: Int32Array
}

/** Thread start-up (modules, the parser's wasm) plus a generous time per file before giving up. */
const BASE_WAIT_MS = 60_000
const WAIT_PER_ITEM_MS = 5_000

export class RecordHealer {
  constructor(
    private readonly repo: Repo,
    private readonly maxFileBytes: number,
  ) {}

  /** Each item's encoded record, or why it could not be extracted; blocks this thread meanwhile. */
  extract(items: HealItem[]): Healed[] {
    if (items.length === 0) return []
    const signal = new Int32Array(new SharedArrayBuffer(4))
    const { port1, port2 } = new MessageChannel()
    const entry = new URL(import.meta.url.endsWith('.ts') ? './heal-worker.ts' : './heal-worker.js', import.meta.url)
    const job: HealJob = { repo: this.repo, items, maxFileBytes: this.maxFileBytes, port: port2, signal }
    const worker = startWorker(entry, { workerData: job, transferList: [port2] })
    try {
      const outcome = Atomics.wait(signal, 0, 0, BASE_WAIT_MS + WAIT_PER_ITEM_MS * items.length)
      const answer = receiveMessageOnPort(port1)?.message as Healed[] | undefined
      if (answer) return answer
      const reason = outcome === 'timed-out' ? 'the extraction thread did not answer in time' : 'the extraction thread failed'
      return items.map(() => ({ error: reason }))
    } finally {
      port1.close()
      void worker.terminate()
    }
  }
}

/**
 * The bytes an item's record is extracted from: a dirty file's from the working tree; a git blob's
 * from `reader`, else (the object is gone: a damaged or partial clone) from the working file at
 * its path, when that file is this very content.
 */
export async function readItemBytes(repo: Repo, reader: BlobReader, item: HealItem): Promise<Buffer> {
  if (item.dirty) return readWorkingContent(repo, item.path!, item.blob)
  try {
    return await reader.read(item.blob)
  } catch (error) {
    if (!item.path || repo.root === null || !(error instanceof VltError)) throw error
    return readWorkingContent(repo, item.path, item.blob).catch(() => Promise.reject(error))
  }
}

/**
 * A working-tree file's bytes, provided they are still the content `hash` names (git hash-object
 * of these very bytes, the path's filters applied): a record is stored under that hash and must
 * hold that content.
 */
export async function readWorkingContent(repo: Repo, path: string, hash: string): Promise<Buffer> {
  const bytes = await readWorkingFile(repo, path)
  const current = await runInRepo(repo, ['hash-object', '--stdin', `--path=${path}`], { input: bytes })
  if (current.toString('latin1').trim() !== hash) throw new VltError(`${path} changed since it was indexed`)
  return bytes
}
