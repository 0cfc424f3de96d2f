/**
 * `coderag scip import`: a SCIP file → `.vlt/scip/index.mpk`. The file is untrusted (a committed
 * `index.scip` is the repository's word): its document paths are confined to the files of the
 * commit it was built for — a path that is absolute, climbs out with `..` or names no file there
 * is left out and counted — and only a regular file is read (never a FIFO or a device).
 */
import { constants, promises as fs } from 'node:fs'
import { posix } from 'node:path'
import { UsageError, VltError } from '../errors.js'
import { BlobReader, listTree, runInRepo } from '../git/index.js'
import type { IndexContext } from '../index/context.js'
import { lockOptions } from '../index/index.js'
import { withLock } from '../store/index.js'
import { needsConversion, toUtf16Columns } from './columns.js'
import { decodeScip } from './decode.js'
import { ScipFormatError } from './protobuf.js'
import { writeScipRecord, type ScipRecord, type ScipSource } from './record.js'

/** Larger than any index we have seen (the Linux kernel's is a few hundred MB); a bound on what a committed file makes us read. */
const MAX_SCIP_BYTES = 2 ** 30

export interface ScipImportResult {
  /** The file imported. */
  path: string
  commit: string
  tool: string
  documents: number
  skippedDocuments: number
  occurrences: number
  symbols: number
}

export interface ScipImportOptions {
  /** The commit the index was built for (a revision); default HEAD. */
  commit?: string
  /** Found by auto-detection rather than named by the user. */
  auto?: boolean
  /** How long to wait for the index lock (default: a writer's 120 s). */
  lockWaitMs?: number
  warn: (message: string) => void
}

/** A SCIP file that cannot be read as one: corrupt, truncated, not SCIP. */
export class ScipImportError extends VltError {}

export async function importScip(index: IndexContext, file: string, options: ScipImportOptions): Promise<ScipImportResult> {
  const { bytes, stat } = await readRegularFile(file)
  let decoded
  try {
    decoded = decodeScip(bytes)
  } catch (error) {
    if (error instanceof ScipFormatError) throw new ScipImportError(`${file} is not a readable SCIP index (${error.message})`)
    throw error
  }
  const commit = await resolveCommit(index, options.commit)
  const blobs = new Map((await listTree(index.repo, commit)).map((entry) => [entry.path, entry.blob]))
  const source: ScipSource = { path: file, size: stat.size, mtimeMs: stat.mtimeMs, auto: options.auto ?? false }
  const record: ScipRecord = { commit, tool: decoded.tool, source, symbols: decoded.symbols, hovers: [...decoded.hovers], documents: [], skippedDocuments: 0 }
  let occurrences = 0
  let reader: BlobReader | undefined
  try {
    for (const document of decoded.documents) {
      const path = confinedPath(document.path)
      const blob = path === null ? undefined : blobs.get(path)
      if (path === null || blob === undefined) {
        record.skippedDocuments++
        continue
      }
      // Columns counted in UTF-8 bytes or code points become ours (UTF-16) against the file's text.
      const rows = needsConversion(document.encoding) ? toUtf16Columns(document.rows, (await (reader ??= new BlobReader(index.repo)).read(blob)).toString('utf8'), document.encoding) : document.rows
      record.documents.push({ path, blob, rows: Uint32Array.from(rows) })
      occurrences += document.rows.length / 6
    }
  } finally {
    await reader?.close()
  }
  await withLock(index.paths.root, () => writeScipRecord(index.paths.scipIndex, record), lockOptions({ warn: options.warn, lockWaitMs: options.lockWaitMs }))
  return { path: file, commit, tool: record.tool, documents: record.documents.length, skippedDocuments: record.skippedDocuments, occurrences, symbols: record.symbols.length }
}

/**
 * A document's path as a repository path, or null when it is not one: SCIP paths are relative to
 * the project root with `/` separators; anything absolute, climbing, or holding a NUL or a
 * backslash is refused rather than interpreted.
 */
export function confinedPath(path: string): string | null {
  if (path === '' || path.includes('\0') || path.includes('\\') || path.startsWith('/')) return null
  const normal = posix.normalize(path)
  if (normal === '..' || normal.startsWith('../') || normal === '.' || normal.endsWith('/')) return null
  return normal
}

async function resolveCommit(index: IndexContext, revision: string | undefined): Promise<string> {
  if (revision === undefined) {
    if (!index.repo.head.commit) throw new UsageError('the repository has no commit yet: commit first, then import the SCIP index built for it')
    return index.repo.head.commit
  }
  if (revision.startsWith('-')) throw new UsageError(`--commit ${JSON.stringify(revision)} is not a revision`)
  try {
    return (await runInRepo(index.repo, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`])).toString('utf8').trim()
  } catch {
    throw new UsageError(`--commit ${JSON.stringify(revision)} names no commit of this repository`)
  }
}

/** The bytes of a regular file, opened without blocking (a FIFO named as the file must not hang us). */
async function readRegularFile(file: string): Promise<{ bytes: Buffer; stat: { size: number; mtimeMs: number } }> {
  let handle
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new UsageError(`${file} is not a regular file`)
    if (stat.size > MAX_SCIP_BYTES) throw new ScipImportError(`${file} is larger than ${MAX_SCIP_BYTES} bytes: not imported`)
    return { bytes: await handle.readFile(), stat: { size: stat.size, mtimeMs: stat.mtimeMs } }
  } finally {
    await handle.close()
  }
}
