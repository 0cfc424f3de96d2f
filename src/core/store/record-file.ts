import { readFileSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { writeFileAtomic, writeFileAtomicSync, type WriteOptions } from './atomic-file.js'
import { decodeRecord, encodeRecord } from './record.js'

/** The record at `path`, or undefined when there is none. Throws CorruptFileError when it cannot be trusted. */
export async function readRecord<T>(path: string, kind: string, version: number): Promise<T | undefined> {
  let buf: Buffer
  try {
    buf = await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return decodeRecord<T>(buf, kind, version, path)
}

/** readRecord for loops over thousands of small blob records, where a promise per file costs more than the read. */
export function readRecordSync<T>(path: string, kind: string, version: number): T | undefined {
  // A cold build misses on every blob: statSync says so without the cost of an ENOENT exception
  // (a fifth of the time over 10,000 files). The read still handles one removed meanwhile.
  if (!statSync(path, { throwIfNoEntry: false })) return undefined
  let buf: Buffer
  try {
    buf = readFileSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return decodeRecord<T>(buf, kind, version, path)
}

/** Encodes and atomically replaces `path`, creating missing directories. */
export async function writeRecord(path: string, kind: string, version: number, payload: unknown, opts?: WriteOptions): Promise<void> {
  await writeFileAtomic(path, encodeRecord(kind, version, payload), opts)
}

export function writeRecordSync(path: string, kind: string, version: number, payload: unknown, opts?: WriteOptions): void {
  writeFileAtomicSync(path, encodeRecord(kind, version, payload), opts)
}
