import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { redactSecrets } from '../files/index.js'

/**
 * Lines of working-tree files, read once per question: the index describes HEAD plus uncommitted
 * edits, which is what is on disk. Credentials are redacted as the index redacts them (same
 * lines, same columns), so evidence never quotes one.
 */
export class FileLines {
  private readonly cache = new Map<string, string[] | null>()

  constructor(private readonly root: string | null) {}

  lines(path: string): string[] | null {
    let lines = this.cache.get(path)
    if (lines === undefined) {
      lines = this.read(path)
      this.cache.set(path, lines)
    }
    return lines
  }

  /** Lines start..end (1-based, inclusive, clamped); null when the file cannot be read. */
  slice(path: string, start: number, end: number): { text: string; start: number; end: number } | null {
    const lines = this.lines(path)
    if (!lines) return null
    const from = Math.max(1, start)
    const to = Math.min(lines.length, end)
    return { text: lines.slice(from - 1, to).join('\n'), start: from, end: to }
  }

  private read(path: string): string[] | null {
    if (this.root === null) return null
    try {
      return redactSecrets(readFileSync(join(this.root, path), 'utf8'), { keepColumns: true }).text.split('\n')
    } catch {
      return null
    }
  }
}
