/**
 * Programs of the user's that git-vlt may run over a repository (SCIP indexers, language servers).
 * A cloned repository is untrusted: a PATH entry inside it (`.`, `node_modules/.bin`, or any
 * absolute path into it) could hold an executable posing as the tool, so such entries are never
 * searched; git-vlt's own installation (its dependencies' binaries) comes after the user's PATH.
 */
import { constants, promises as fs } from 'node:fs'
import { delimiter, isAbsolute, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** git-vlt's own installed binaries (its dependencies'), outside any repository it works on. */
const OWN_BIN = fileURLToPath(new URL('../../../node_modules/.bin/', import.meta.url))

/** `name` on the user's PATH (entries inside `root` left out), else in git-vlt's own installation; null when neither has it. */
export async function findInstalled(name: string, root: string): Promise<string | null> {
  const realRoot = await fs.realpath(root)
  for (const entry of (process.env.PATH ?? '').split(delimiter)) {
    if (entry === '' || !isAbsolute(entry)) continue
    const dir = await fs.realpath(entry).catch(() => null)
    if (dir === null || dir === realRoot || dir.startsWith(realRoot + sep)) continue
    if (await isExecutable(join(dir, name))) return join(dir, name)
  }
  return (await isExecutable(join(OWN_BIN, name))) ? join(OWN_BIN, name) : null
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await fs.access(path, constants.X_OK)
    return (await fs.stat(path)).isFile()
  } catch {
    return false
  }
}
