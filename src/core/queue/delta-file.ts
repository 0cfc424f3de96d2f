/**
 * One batch file of the queue, as a hook writes it with git plumbing and no parsing of its own:
 *
 *   vlt-delta 1 <hook> <from commit, or - for the root> <to commit>\n
 *   <output of `git diff-tree -r -z --raw --numstat [-M] from to`>
 *   end\n
 *
 * With -z, git prints every raw entry (`:<old mode> <new mode> <old blob> <new blob> <status>\0<path>\0`,
 * renames with a score and two paths) and then every numstat entry (`<added>\t<removed>\t<path>\0`,
 * renames as `<added>\t<removed>\t\0<old>\0<new>\0`, binaries as `-\t-\t`). Paths are raw bytes, never quoted.
 */
import type { HookName } from '../hooks/script.js'

export type ChangeType = 'A' | 'M' | 'D' | 'R'

/** One changed path of one batch. */
export interface DeltaRecord {
  /** The batch (queue file) it came from: what drainQueue takes. */
  batch: string
  hook: HookName
  change: ChangeType
  path: string
  /** Renames only: where the file was. */
  oldPath: string | null
  /** null when the path did not exist on that side. */
  oldBlob: string | null
  newBlob: string | null
  /** The new side's git mode (e.g. '100644', '120000' for a symlink, '160000' for a submodule); null when deleted. */
  mode: string | null
  /** Lines added/removed; null for binary files. */
  added: number | null
  removed: number | null
}

export interface DeltaBatch {
  id: string
  hook: HookName
  /** null: the batch diffs `to` against the empty tree (root commit, clone). */
  from: string | null
  to: string
  /** When the hook wrote it (the file's mtime), in ms since the epoch. */
  enqueuedAt: number
  records: DeltaRecord[]
  /** The file lacks its closing line (cut short by a crash); the complete entries before the cut are kept. */
  torn: boolean
}

const HOOKS = new Set<string>(['post-commit', 'post-merge', 'post-checkout', 'post-rewrite'])
const HEADER = /^vlt-delta 1 (post-[a-z]+) (-|[0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64})$/
const RAW = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([ACDMRTUX])(\d*)$/
const TRAILER = 'end\n'
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t(.*)$/s

/** Parses a batch file; undefined when its header is not one a hook writes (not a batch, or an unknown version). */
export function parseDeltaFile(id: string, bytes: Buffer, enqueuedAt: number): DeltaBatch | undefined {
  const newline = bytes.indexOf(0x0a)
  if (newline < 0) return undefined
  const header = HEADER.exec(bytes.toString('latin1', 0, newline))
  if (!header || !HOOKS.has(header[1]!)) return undefined
  const hook = header[1] as HookName
  const fields = bytes.toString('utf8', newline + 1).split('\0')
  // After the last NUL comes the closing line, or, in a file cut short, part of an entry.
  const torn = fields.pop() !== TRAILER
  const records: DeltaRecord[] = []
  const byPath = new Map<string, DeltaRecord>()
  let i = 0
  let tornEntry = false
  for (; i < fields.length; ) {
    const raw = RAW.exec(fields[i]!)
    if (!raw) break
    const [, , newMode, oldBlob, newBlob, status] = raw
    const renamed = status === 'R' || status === 'C'
    const paths = fields.slice(i + 1, i + (renamed ? 3 : 2))
    if (paths.length < (renamed ? 2 : 1)) {
      tornEntry = true
      break
    }
    i += 1 + paths.length
    const record: DeltaRecord = {
      batch: id,
      hook,
      change: changeType(status!),
      path: paths[paths.length - 1]!,
      oldPath: renamed ? paths[0]! : null,
      oldBlob: isNull(oldBlob!) ? null : oldBlob!,
      newBlob: isNull(newBlob!) ? null : newBlob!,
      mode: newMode === '000000' ? null : newMode!,
      // Until its numstat entry says otherwise (it may have been lost to a torn write).
      added: 0,
      removed: 0,
    }
    records.push(record)
    byPath.set(record.path, record)
  }
  while (!tornEntry && i < fields.length) {
    const stat = NUMSTAT.exec(fields[i]!)
    if (!stat) break
    // A rename's numstat leaves its path empty and gives old and new in the next two fields.
    const path = stat[3] === '' ? fields[i + 2] : stat[3]
    if (path === undefined) break
    i += stat[3] === '' ? 3 : 1
    const record = byPath.get(path)
    if (!record) continue
    record.added = stat[1] === '-' ? null : Number(stat[1])
    record.removed = stat[2] === '-' ? null : Number(stat[2])
  }
  return { id, hook, from: header[2] === '-' ? null : header[2]!, to: header[3]!, enqueuedAt, records, torn: torn || tornEntry }
}

/** A type change (file ↔ symlink) is a modification to the index, a copy (only with -C) an addition. */
function changeType(status: string): ChangeType {
  if (status === 'A' || status === 'D' || status === 'R') return status
  return status === 'C' ? 'A' : 'M'
}

function isNull(hash: string): boolean {
  return /^0+$/.test(hash)
}
