import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Repo } from './repo.js'

/**
 * The commits a shallow clone's history stops at: git lists them in `shallow` in the common git
 * dir (shared by linked worktrees) and treats them as parentless, so `git blame` credits every older
 * line to them and their diff holds all the history before them. Empty for a complete repository.
 * Read on each call (one small file, no git process): a long-lived process (MCP server) then sees a
 * `git fetch --unshallow` or `--deepen` made meanwhile.
 */
export function shallowBoundary(repo: Pick<Repo, 'commonDir'>): ReadonlySet<string> {
  let text: string
  try {
    text = readFileSync(join(repo.commonDir, 'shallow'), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Set()
    throw error
  }
  return new Set(text.split('\n').filter((line) => /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line)))
}
