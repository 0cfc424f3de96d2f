import { writeFileAtomic, writeFileAtomicSync, type WriteOptions } from './atomic-file.js'
import { readFileConfined, readFileConfinedSync } from './confine.js'
import { decodeRecord, encodeRecord, frameParts, type SizedParts } from './record.js'

/**
 * The record at `path`, or undefined when there is none. Throws CorruptFileError when it cannot be
 * trusted, ConfinementError when it is a link or not a regular file (see confine.ts).
 */
export async function readRecord<T>(path: string, kind: string, version: number): Promise<T | undefined> {
  const buf = await readFileConfined(path)
  return buf === undefined ? undefined : decodeRecord<T>(buf, kind, version, path)
}

/** readRecord for loops over thousands of small blob records, where a promise per file costs more than the read. */
export function readRecordSync<T>(path: string, kind: string, version: number): T | undefined {
  const buf = readFileConfinedSync(path)
  return buf === undefined ? undefined : decodeRecord<T>(buf, kind, version, path)
}

/** Encodes and atomically replaces `path`, creating missing directories. */
export async function writeRecord(path: string, kind: string, version: number, payload: unknown, opts?: WriteOptions): Promise<void> {
  await writeFileAtomic(path, encodeRecord(kind, version, payload), opts)
}

export function writeRecordSync(path: string, kind: string, version: number, payload: unknown, opts?: WriteOptions): void {
  writeFileAtomicSync(path, encodeRecord(kind, version, payload), opts)
}

/**
 * Atomically replaces `path` with a record whose payload is laid out by its kind, given in parts
 * (see `frameParts`): each part is written as it is produced.
 */
export function writeFramedSync(path: string, kind: string, version: number, parts: readonly Uint8Array[] | SizedParts, opts?: WriteOptions): void {
  writeFileAtomicSync(path, frameParts(kind, version, parts), opts)
}
