import { randomBytes } from 'node:crypto'

/**
 * `<ms since epoch, base36, 9 digits>-<8 random hex>`: ids sort as their creation times do (the
 * fixed width keeps string order equal to numeric order until the year 5188), and the random part
 * keeps entries pushed on different machines or branches in the same millisecond distinct.
 */
export function newEntryId(nowMs: number, after?: string): string {
  // Within one file, ids strictly increase even when two pushes share a millisecond or the clock steps back.
  const floor = after === undefined ? -1 : entryIdTime(after)
  const ms = Math.max(nowMs, floor + 1)
  return `${ms.toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`
}

export function entryIdTime(id: string): number {
  return parseInt(id.slice(0, 9), 36)
}
