import { statSync } from 'node:fs'
import { CorruptFileError } from '../errors.js'
import type { IndexContext } from '../index/context.js'
import { removeConfinedSync } from '../store/index.js'
import { readScipRecord } from './record.js'
import { ScipView } from './view.js'

/**
 * The imported SCIP index as a query reads it, or null when there is none. Read again when the
 * record changed since (a warm context — daemon, MCP server — outlives an import). A damaged
 * record is removed, with one warning: an auto-detected file is imported again by the next query;
 * a file imported by hand must be imported again (it is not derived from git, so git cannot
 * rebuild it).
 */
export function scipViewLoader(index: IndexContext, warn: (message: string) => void): () => ScipView | null {
  let stamp = ''
  let view: ScipView | null = null
  return () => {
    const now = stampOf(index.paths.scipIndex)
    if (now === stamp) return view
    stamp = now
    view = load(index, warn)
    return view
  }
}

function load(index: IndexContext, warn: (message: string) => void): ScipView | null {
  try {
    const record = readScipRecord(index.paths.scipIndex)
    return record ? new ScipView(record) : null
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    removeDamaged(index)
    warn(`warning: the imported SCIP index (.vlt/scip/index.mpk) was damaged and is removed; answering from the syntactic index ${HOW_BACK}`)
    return null
  }
}

export const HOW_BACK = '(an offered index.scip is imported again by the next query; else run `git vlt coderag scip import FILE`)'

/** Removes a damaged record: it is not derived from git, so nothing can rebuild it but an import. */
export function removeDamaged(index: IndexContext): void {
  try {
    removeConfinedSync(index.paths.scipIndex)
  } catch {
    // A `.vlt/` that cannot be written keeps it: the next read refuses it again, with the same line.
  }
}

function stampOf(path: string): string {
  try {
    const stat = statSync(path)
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`
  } catch {
    return 'none'
  }
}
