/**
 * Records a repository ships. `.vlt/` is git-vlt's own cache, rebuilt from git objects, except
 * `threads/`, which is meant to be committed. A repository that commits anything else there
 * (`objects/`, `trees/`, `state.mpk`…) puts files in the working tree exactly where git-vlt looks
 * for its records, and a validly checksummed record is indistinguishable from one git-vlt wrote:
 * search would serve its text as if extracted from the code at that blob. So the index of such a
 * tree is never built or served; the command says why in one line and what to do. Refusing beats
 * ignoring: git-vlt cannot tell those files from its own, and overwriting them would rewrite files
 * the repository tracks.
 *
 * Detection is free: building a tree lists it (ls-tree) anyway. Links are not listed as files
 * there; confine.ts refuses those when they are met.
 */
import { VltError } from '../errors.js'

/** `.vlt` as a path inside the working tree (a bare repository keeps it in the git dir, beyond any tree). */
const VLT_IN_TREE = '.vlt/'

/** What may be committed under `.vlt/`: the threads, and the .gitignore git-vlt writes (which says so). */
function committable(pathInVlt: string): boolean {
  return pathInVlt === '.gitignore' || pathInVlt.startsWith('threads/')
}

/** Throws when `treePaths` (a tree's file paths) hold anything under `.vlt/` but threads. */
export function refuseShippedRecords(treePaths: Iterable<string>): void {
  const shipped: string[] = []
  for (const path of treePaths) if (path.startsWith(VLT_IN_TREE) && !committable(path.slice(VLT_IN_TREE.length))) shipped.push(path)
  if (shipped.length === 0) return
  const tops = [...new Set(shipped.map((path) => VLT_IN_TREE + path.slice(VLT_IN_TREE.length).split('/')[0]))].sort()
  const more = shipped.length > 1 ? ` and ${shipped.length - 1} more` : ''
  throw new VltError(
    `this commit ships files under .vlt/ (${JSON.stringify(shipped[0]).slice(1, -1)}${more}), where git-vlt keeps its own index: ` +
      `it will not index or answer from records a repository commits, which could pose as text extracted from your code; ` +
      `only .vlt/threads/ belongs in a commit: remove the rest (\`git rm -r --cached ${tops.join(' ')}\`, then commit) and run again`,
  )
}
