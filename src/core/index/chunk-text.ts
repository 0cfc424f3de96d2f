/**
 * Chunk text, which a git blob's record does not store (see StoredChunk): a chunk's text is lines
 * startLine..endLine of its file's text as extraction saw it (classified, credentials redacted in
 * place), trailing whitespace trimmed (LineIndex.text), and git serves that file by the record's
 * key. Readers stay synchronous: an artifact's chunks read their text on first use, and a reader
 * about to use many files' text (a search's snippets, a page of references) reads them first in
 * one git run (`prefetch`). A record of working-tree content keeps its text, so git is only ever
 * asked for blobs it indexed. Credentials are looked for again only in the files whose record says
 * extraction redacted some (BlobRecord.redacted): the same bytes give the same text.
 */
import { classifyContent, decodeUtf8 } from '../files/index.js'
import { readBlobsSync, type Repo } from '../git/index.js'
import { LineIndex } from '../parse/chunk/index.js'
import type { Chunk, FileArtifact } from '../parse/types.js'
import type { StoredArtifact, StoredChunk } from './blob-task.js'
import type { Repairs } from './repairs.js'

/** The file texts of a query context's blob records, read from git until an artifact takes them. */
export class ChunkTexts {
  /** By blob: the file's bytes, or why they cannot be had. */
  private readonly texts = new Map<string, Buffer | { unread: string }>()

  constructor(
    private readonly repo: Repo,
    private readonly repairs: Repairs,
  ) {}

  /**
   * Reads the texts of `blobs` not read yet, in one git run. The texts an earlier call read and
   * nobody took are dropped: a warm context (the daemon) must not keep every file a search ever
   * looked at.
   */
  prefetch(blobs: Iterable<string>): void {
    const all = new Set(blobs)
    for (const [blob, bytes] of this.texts) if (Buffer.isBuffer(bytes) && !all.has(blob)) this.texts.delete(blob)
    this.read([...all].filter((blob) => !this.texts.has(blob)))
  }

  private read(wanted: string[]): void {
    if (wanted.length === 0) return
    let found: Map<string, Buffer>
    try {
      found = readBlobsSync(this.repo, wanted)
    } catch (error) {
      for (const blob of wanted) this.texts.set(blob, { unread: (error as Error).message })
      return
    }
    for (const blob of wanted) this.texts.set(blob, found.get(blob) ?? { unread: `git has no blob ${blob.slice(0, 12)}` })
  }

  /**
   * The text of `blob`'s file, checked against its record's line count; undefined when git cannot
   * serve it, or serves something else (noted in the repairs: the chunks' text is then empty).
   * `redacted`: its record's (BlobRecord.redacted).
   */
  text(blob: string, lineCount: number, redacted: boolean): string | undefined {
    if (!this.texts.has(blob)) this.read([blob])
    const bytes = this.texts.get(blob)!
    // Not kept either way: the artifact keeps the text, and a warm context asks git again for the next artifact of this blob.
    this.texts.delete(blob)
    const text = Buffer.isBuffer(bytes) ? textOf(blob, bytes, redacted) : bytes
    if (typeof text === 'string' && new LineIndex(text).count === lineCount) return text
    this.repairs.textUnread(typeof text === 'string' ? `blob ${blob.slice(0, 12)} does not have the lines its record describes` : text.unread)
    return undefined
  }
}

/** The text extraction saw in these bytes: redacted again when it was then, else only decoded. */
function textOf(blob: string, bytes: Buffer, redacted: boolean): string | { unread: string } {
  const unread = (reason: string): { unread: string } => ({ unread: `blob ${blob.slice(0, 12)} is no longer indexed as text (${reason})` })
  if (!redacted) return decodeUtf8(bytes) ?? unread('invalidUtf8')
  // No size bound: the record exists, so the content was within the one in force when it was extracted.
  const content = classifyContent(bytes, Number.MAX_SAFE_INTEGER)
  return content.ok ? content.text : unread(content.reason)
}

/**
 * The artifact a record stores, its chunks' text read on first use from `text` (the file's), for
 * the chunks stored without it. Each chunk's `body` is a property of its own (an object spread
 * copies it), replaced by the value once read.
 */
export function withChunkText(stored: StoredArtifact, text: () => string | undefined): Omit<FileArtifact, 'references'> {
  let lines: LineIndex | null | undefined
  const linesOf = (): LineIndex | null => {
    if (lines === undefined) {
      const source = text()
      lines = source === undefined ? null : new LineIndex(source)
    }
    return lines
  }
  for (const chunk of stored.chunks) if (chunk.body === undefined) lazyBody(chunk, linesOf)
  return stored as Omit<FileArtifact, 'references'> & { chunks: Chunk[] }
}

function lazyBody(chunk: StoredChunk, linesOf: () => LineIndex | null): void {
  Object.defineProperty(chunk, 'body', {
    configurable: true,
    enumerable: true,
    get: () => {
      const body = linesOf()?.text(chunk.startLine - 1, chunk.endLine - 1) ?? ''
      Object.defineProperty(chunk, 'body', { value: body, configurable: true, enumerable: true, writable: true })
      return body
    },
  })
}
