/**
 * Path arguments from a model (MCP tools) or a browser (git vlt ui), not from the user at a shell,
 * are resolved inside the repository root and anything that would leave it — `..` above the root,
 * an absolute path elsewhere, a symlink pointing out — is refused rather than silently clamped.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { UsageError } from '../errors.js'

/** Characters that start the wildcard part of a gitignore-style glob. */
const GLOB_CHARS = /[*?[\]{}!]/

/**
 * A repo-relative, '/'-separated path (or glob) equivalent to `input`, which may be relative to
 * the root or absolute inside it. Returns '' for the root itself.
 */
export function resolveInRepo(root: string, input: string, what = 'path'): string {
  if (input.includes('\0')) throw new UsageError(`${what} contains a NUL byte`)
  const slashed = input.replace(/\\/g, '/')
  const wildcard = slashed.search(GLOB_CHARS)
  // Only the literal prefix names real directories; the glob tail is matched, never opened.
  const literalEnd = wildcard < 0 ? slashed.length : slashed.lastIndexOf('/', wildcard) + 1
  const literal = slashed.slice(0, literalEnd)
  const tail = slashed.slice(literalEnd)
  if (tail.split('/').includes('..')) throw new UsageError(`${what} ${JSON.stringify(input)} leaves the repository`)
  const absolute = resolve(root, literal === '' ? '.' : literal)
  const inside = relative(root, absolute)
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new UsageError(`${what} ${JSON.stringify(input)} is outside the repository (${root})`)
  }
  refuseSymlinkOut(root, absolute, input, what)
  const prefix = inside.split(sep).join('/')
  if (tail === '') return prefix
  return prefix === '' ? tail : `${prefix}/${tail}`
}

/** The deepest existing ancestor of `absolute` must still be under the root once symlinks are followed. */
function refuseSymlinkOut(root: string, absolute: string, input: string, what: string): void {
  const realRoot = realpathSync(root)
  let probe = absolute
  for (;;) {
    let real: string
    try {
      real = realpathSync(probe)
    } catch {
      const parent = resolve(probe, '..')
      if (parent === probe) return
      probe = parent
      continue
    }
    if (real !== realRoot && !real.startsWith(realRoot + sep)) {
      throw new UsageError(`${what} ${JSON.stringify(input)} resolves outside the repository through a symbolic link (${real})`)
    }
    return
  }
}
