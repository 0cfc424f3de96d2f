/**
 * Where a served query's daemon is, found without running git when the repository is a plain one.
 * `git rev-parse` costs the client a process spawn (fork and exec on its main thread, and Node's
 * child_process module loaded for it): Linux full, load 15, ~6 of the ~45 CPU-ms a served search
 * costs beyond `node -e 0`. git's discovery walks up from the working directory to the nearest
 * `.git`; so does this, and it gives up — the caller then asks git — wherever git might end
 * elsewhere or refuse:
 * - the environment or a `-c` setting moves or bounds discovery (GIT_DIR, GIT_CEILING_DIRECTORIES…);
 * - the directory is inside a git directory (git refuses to run there);
 * - the nearest `.git` is a file (a linked worktree, a submodule: its git dir is elsewhere), or a
 *   directory without HEAD (not a repository: git would walk on);
 * - the walk would cross into another file system (git stops there);
 * - the `.git` directory belongs to another user (git refuses it unless safe.directory allows it,
 *   and a daemon listening there would be that user's).
 * A `.git` whose own config moves the working tree (core.worktree) is not looked into: no daemon
 * serves such a directory's `.vlt`, since git never named it the top level.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import type { RepoLocation } from '../git/repo.js'
import { confineTo } from '../store/confine.js'

/** What the daemon's client needs of the repository's location. */
export type DaemonLocation = Pick<RepoLocation, 'root' | 'gitDir' | 'vltDir'>

/** Variables that change which repository git finds, or where its work tree is. */
const DISCOVERY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT']

/** The plain repository around `cwd`, as git would find it; undefined to leave it to git. */
export function plainRepoLocation(cwd: string, env: NodeJS.ProcessEnv = process.env): DaemonLocation | undefined {
  if (DISCOVERY_ENV.some((name) => env[name] !== undefined)) return undefined
  try {
    // git names the top level by its real path.
    const start = realpathSync.native(cwd)
    if (start.split(sep).includes('.git')) return undefined
    const device = statSync(start).dev
    for (let dir = start; ; dir = dirname(dir)) {
      if (statSync(dir).dev !== device) return undefined
      const gitDir = join(dir, '.git')
      const dotGit = lstatSync(gitDir, { throwIfNoEntry: false })
      if (dotGit) return dotGit.isDirectory() && dotGit.uid === process.getuid?.() && lstatSync(join(gitDir, 'HEAD'), { throwIfNoEntry: false })?.isFile() ? located(dir) : undefined
      if (dirname(dir) === dir) return undefined
    }
  } catch {
    // Unreadable on the way: git says what it makes of that.
    return undefined
  }
}

function located(root: string): DaemonLocation {
  const vltDir = join(root, '.vlt')
  // As locateRepo does: the client's reads under .vlt/ (its run folder, the socket) are confined to it.
  confineTo(vltDir)
  return { root, gitDir: join(root, '.git'), vltDir }
}
