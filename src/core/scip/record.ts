/**
 * `.vlt/scip/index.mpk`: the SCIP index imported last, reduced to def/refs/hover rows and keyed by
 * the commit it was built for. Each document carries its file's blob at that commit, so a query
 * trusts SCIP for exactly the files whose content has not changed since (see view.ts).
 */
import { readRecordSync, writeRecord } from '../store/index.js'

export const SCIP_RECORD_KIND = 'scip-index'
export const SCIP_RECORD_VERSION = 1

export interface ScipSource {
  /** The file imported, as given (absolute). */
  path: string
  size: number
  mtimeMs: number
  /** Found by auto-detection (`index.scip` at the root, `[scip] path`): imported again when it changes. */
  auto: boolean
}

export interface ScipDocumentRecord {
  path: string
  /** The file's blob at `commit`. */
  blob: string
  /** ROW integers per occurrence (decode.ts), in the index's order. */
  rows: Uint32Array
}

export interface ScipRecord {
  commit: string
  tool: string
  source: ScipSource
  /** Symbol ids to SCIP symbols. */
  symbols: string[]
  /** [symbol id, hover text] pairs. */
  hovers: Array<[number, string]>
  documents: ScipDocumentRecord[]
  /** Documents of the index left out: a path outside the repository, or no file there at `commit`. */
  skippedDocuments: number
}

export function readScipRecord(path: string): ScipRecord | undefined {
  return readRecordSync<ScipRecord>(path, SCIP_RECORD_KIND, SCIP_RECORD_VERSION)
}

export async function writeScipRecord(path: string, record: ScipRecord): Promise<void> {
  await writeRecord(path, SCIP_RECORD_KIND, SCIP_RECORD_VERSION, record)
}
