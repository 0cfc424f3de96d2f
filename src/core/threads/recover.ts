/**
 * Recovers entries spliced by a union merge (see format.ts) from the commits that added them:
 * before the merge each side's file held the entry intact, and its end marker's hash tells the
 * intact text from any other. Only runs when a thread file is damaged, so cost is no concern.
 */
import { basename, dirname } from 'node:path'
import { GitError, runGit } from '../git/command.js'
import { matchesHash, parseThread, type BrokenEntry } from './format.js'

export interface RecoveredEntry {
  text: string
  /** The commit whose version of the file held the entry intact. */
  commit: string
}

/** Candidate commits per entry: the few newest that changed the entry's marker count. */
const MAX_COMMITS = 4

export async function recoverEntries(path: string, broken: BrokenEntry[]): Promise<Map<string, RecoveredEntry>> {
  const recovered = new Map<string, RecoveredEntry>()
  const cwd = dirname(path)
  const file = `./${basename(path)}`
  try {
    const revisions = ['HEAD', ...((await gitText(cwd, ['rev-parse', '-q', '--verify', 'MERGE_HEAD']).catch(() => '')) ? ['MERGE_HEAD'] : [])]
    for (const { id, hash } of broken) {
      // Pickaxe finds the commit adding this exact marker (merges are skipped: they only carry it over).
      const marker = hash === undefined ? `<!-- vlt:entry ${id} -->` : `<!-- vlt:end ${id} ${hash} -->`
      const commits = (await gitText(cwd, ['log', `-n${MAX_COMMITS}`, '--format=%H', `-S${marker}`, ...revisions, '--', file])).split('\n').filter(Boolean)
      for (const commit of commits) {
        const old = parseThread(await gitText(cwd, ['show', `${commit}:${file}`]), `${commit}:${file}`)
        const entry = old.entries.find((candidate) => candidate.id === id)
        if (!entry || old.broken.some((b) => b.id === id) || (hash !== undefined && !matchesHash(entry.text, hash))) continue
        recovered.set(id, { text: entry.text, commit })
        break
      }
    }
  } catch (error) {
    // Not in a work tree (bare repository) or history unavailable: the caller reports what is left.
    if (!(error instanceof GitError)) throw error
  }
  return recovered
}

async function gitText(cwd: string, args: string[]): Promise<string> {
  return (await runGit(args, { cwd })).toString('utf8').trim()
}
