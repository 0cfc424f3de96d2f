/** The oracle contexts a repository keeps (`.vlt/contexts/`), decoded as git-vlt reads them. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeRecord } from '../../src/core/store/index.js'

export function contextsDir(repoDir: string): string {
  return join(repoDir, '.vlt', 'contexts')
}

/** The context files, by the name part of their file name (`default`, `compressor`…). */
export function contextNames(repoDir: string): string[] {
  return readdirSync(contextsDir(repoDir))
    .filter((f) => f.endsWith('.context'))
    .map((f) => f.replace(/-[0-9a-f]{8}\.context$/, ''))
    .sort()
}

export function contextFileOf(repoDir: string, slug: string): string {
  const files = readdirSync(contextsDir(repoDir)).filter((f) => f.startsWith(`${slug}-`) && f.endsWith('.context'))
  if (files.length !== 1) throw new Error(`expected one context ${slug}, found ${files.join(', ') || 'none'}`)
  return join(contextsDir(repoDir), files[0]!)
}

export function readContext(repoDir: string, slug: string): any {
  const path = contextFileOf(repoDir, slug)
  return decodeRecord(readFileSync(path), 'oracle-context', 2, path)
}
