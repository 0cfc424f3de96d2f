/**
 * Programs of the user's that git-vlt may run over a repository (SCIP indexers, language servers).
 * A cloned repository is untrusted: a PATH entry inside it (`.`, `node_modules/.bin`, or any
 * absolute path into it) could hold an executable posing as the tool, so such entries are never
 * searched; git-vlt's own installation (its dependencies' binaries) comes after the user's PATH.
 *
 * Synchronous: a handful of stats, and the query daemon's client resolves the language servers on
 * every query (src/core/daemon/identity.ts) where a promise's overhead would cost more than they do.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** git-vlt's own installed binaries (its dependencies'), outside any repository it works on. */
const OWN_BIN = fileURLToPath(new URL('../../../node_modules/.bin/', import.meta.url))

/** `name` on the user's PATH (entries inside `root` left out), else in git-vlt's own installation; null when neither has it. */
export function findInstalled(name: string, root: string, path = process.env.PATH): string | null {
  return findEachInstalled([name], root, path)[0]!
}

/** findInstalled of each name, the PATH read once. */
export function findEachInstalled(names: readonly string[], root: string, path = process.env.PATH): Array<string | null> {
  const dirs = [...userDirs(root, path), OWN_BIN]
  return names.map((name) => dirs.map((dir) => join(dir, name)).find(isExecutable) ?? null)
}

/**
 * The PATH a program run over the repository gets: the user's without the entries findInstalled
 * leaves out. The program looks up its own helpers there (pyright runs `python3` for its search
 * paths), and must not find the repository's.
 */
export function trustedPath(root: string, path = process.env.PATH): string {
  return userDirs(root, path).join(delimiter)
}

/** PATH's absolute entries that exist and lie outside `root` (both compared as real paths), in order. */
function userDirs(root: string, path: string | undefined): string[] {
  const realRoot = realpathSync.native(root)
  const dirs: string[] = []
  for (const entry of (path ?? '').split(delimiter)) {
    if (entry === '' || !isAbsolute(entry)) continue
    const dir = realPath(entry)
    if (dir === null || dir === realRoot || dir.startsWith(realRoot + sep)) continue
    dirs.push(dir)
  }
  return dirs
}

function realPath(path: string): string | null {
  try {
    return realpathSync.native(path)
  } catch {
    return null
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}
