/**
 * Installing, removing and inspecting git-vlt's hooks in the effective hooks directory
 * (`core.hooksPath` when set — husky, lefthook, a shared `.githooks/` — else `.git/hooks`).
 *
 * A hook already there is chained, never replaced:
 * - an executable sh/bash/dash script gets our block inserted after its shebang, so it keeps its
 *   own path as $0 (husky derives the user's hook from `basename "$0"`);
 * - anything else (another interpreter, a binary, a symlink, a non-executable file) is renamed to
 *   `<hook>.vlt-chained` and our hook calls it with the same arguments and stdin, if executable.
 * Uninstall undoes exactly that, so the directory ends as it was, bytes and modes included.
 */
import { randomBytes } from 'node:crypto'
import { chmod, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { VltError } from '../errors.js'
import { GitError, openRepo } from '../git/index.js'
import { runInRepo, type Repo } from '../git/repo.js'
import { defaultLauncher, type Launcher } from '../queue/indexer.js'
import { CHAINED_SUFFIX, HOOK_NAMES, OWN_SHEBANG, findBlock, insertionPoint, renderBlock, type HookName } from './script.js'

export interface HooksDir {
  /** Absolute path of the directory git runs hooks from. */
  dir: string
  /** `core.hooksPath` as configured, or null when git uses `.git/hooks`. */
  hooksPath: string | null
}

export async function hooksDir(repo: Repo): Promise<HooksDir> {
  const dir = (await runInRepo(repo, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks'])).toString('utf8').trim()
  let hooksPath: string | null = null
  try {
    hooksPath = (await runInRepo(repo, ['config', '--get', 'core.hooksPath'])).toString('utf8').trim()
  } catch (error) {
    // Exit 1: the key is not set.
    if (!(error instanceof GitError) || error.status !== 1) throw error
  }
  return { dir, hooksPath }
}

export type HookState = 'installed' | 'chained' | 'foreign' | 'missing'

export interface HookStatus {
  hook: HookName
  path: string
  /** installed: the file is ours alone; chained: ours runs along a hook that was there; foreign: a hook without ours; missing: no hook. */
  state: HookState
  /** The hook ours calls: the moved-aside file, or the hook's own path when our block sits inside it. */
  chainedTo: string | null
  /** Our block is what `hooks install` would write now (false when absent). */
  upToDate: boolean
}

export interface HookChange {
  hook: HookName
  path: string
  action: 'installed' | 'chained' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'absent' | 'foreign'
  chainedTo: string | null
}

export interface HooksReport<T> extends HooksDir {
  hooks: T[]
}

export interface InstallOptions {
  /** The CLI hooks start in the background (default: this installation); null: hooks only queue, and `coderag sync` applies the queue. */
  launcher?: Launcher | null
}

export async function installHooks(cwd: string, options: InstallOptions = {}): Promise<HooksReport<HookChange>> {
  const located = await hooksDir(await openRepo(cwd))
  const launcher = options.launcher === undefined ? defaultLauncher() : options.launcher
  const hooks: HookChange[] = []
  for (const hook of HOOK_NAMES) hooks.push(await installHook(located.dir, hook, launcher))
  return { ...located, hooks }
}

export async function uninstallHooks(cwd: string): Promise<HooksReport<HookChange>> {
  const located = await hooksDir(await openRepo(cwd))
  const hooks: HookChange[] = []
  for (const hook of HOOK_NAMES) hooks.push(await uninstallHook(located.dir, hook))
  return { ...located, hooks }
}

export async function hooksStatus(cwd: string, launcher: Launcher | null = defaultLauncher()): Promise<HooksReport<HookStatus>> {
  const located = await hooksDir(await openRepo(cwd))
  const hooks: HookStatus[] = []
  for (const hook of HOOK_NAMES) hooks.push(await hookStatus(located.dir, hook, launcher))
  return { ...located, hooks }
}

interface Present {
  mode: number
  /** null for anything but a regular file (symlinks are never read through). */
  text: string | null
}

async function inspect(path: string): Promise<Present | undefined> {
  let info
  try {
    info = await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return { mode: info.mode & 0o7777, text: info.isFile() ? await readFile(path, 'latin1') : null }
}

async function installHook(dir: string, hook: HookName, launcher: Launcher | null): Promise<HookChange> {
  const path = join(dir, hook)
  const aside = path + CHAINED_SUFFIX
  const [present, asidePresent] = await Promise.all([inspect(path), inspect(aside)])
  const block = present?.text == null ? undefined : findBlock(present.text, hook)
  if (present && block) {
    const chain = block.kind === 'installed' && asidePresent !== undefined
    const fresh = renderBlock({ hook, kind: block.kind, launcher, chain })
    const text = present.text!.slice(0, block.start) + fresh + present.text!.slice(block.end)
    const chainedTo = block.kind === 'inserted' ? path : chain ? aside : null
    if (text === present.text) return { hook, path, action: 'unchanged', chainedTo }
    await writeHook(path, text, present.mode)
    return { hook, path, action: 'updated', chainedTo }
  }
  if (!present) {
    // Ours went missing but the hook it replaced is still aside: keep calling it.
    const chain = asidePresent !== undefined
    await writeHook(path, OWN_SHEBANG + renderBlock({ hook, kind: 'installed', launcher, chain }), 0o755, true)
    return { hook, path, action: chain ? 'chained' : 'installed', chainedTo: chain ? aside : null }
  }
  const at = present.text === null || (present.mode & 0o111) === 0 ? undefined : insertionPoint(present.text)
  if (at !== undefined) {
    const text = present.text!.slice(0, at) + renderBlock({ hook, kind: 'inserted', launcher, chain: false }) + present.text!.slice(at)
    await writeHook(path, text, present.mode)
    return { hook, path, action: 'chained', chainedTo: path }
  }
  if (asidePresent) throw new VltError(`cannot chain ${path}: ${aside} is in the way — move one of them and run \`git vlt hooks install\` again`)
  await rename(path, aside)
  await writeHook(path, OWN_SHEBANG + renderBlock({ hook, kind: 'installed', launcher, chain: true }), 0o755, true)
  return { hook, path, action: 'chained', chainedTo: aside }
}

async function uninstallHook(dir: string, hook: HookName): Promise<HookChange> {
  const path = join(dir, hook)
  const aside = path + CHAINED_SUFFIX
  const [present, asidePresent] = await Promise.all([inspect(path), inspect(aside)])
  const block = present?.text == null ? undefined : findBlock(present.text, hook)
  if (present && block?.kind === 'inserted') {
    await writeHook(path, present.text!.slice(0, block.start) + present.text!.slice(block.end), present.mode)
    return { hook, path, action: 'restored', chainedTo: path }
  }
  if (present && !block) return { hook, path, action: 'foreign', chainedTo: null }
  if (present) await unlink(path)
  if (!asidePresent) return { hook, path, action: present ? 'removed' : 'absent', chainedTo: null }
  await rename(aside, path)
  return { hook, path, action: 'restored', chainedTo: aside }
}

async function hookStatus(dir: string, hook: HookName, launcher: Launcher | null): Promise<HookStatus> {
  const path = join(dir, hook)
  const aside = path + CHAINED_SUFFIX
  const [present, asidePresent] = await Promise.all([inspect(path), inspect(aside)])
  if (!present) return { hook, path, state: 'missing', chainedTo: null, upToDate: false }
  const block = present.text === null ? undefined : findBlock(present.text, hook)
  if (!block) return { hook, path, state: 'foreign', chainedTo: null, upToDate: false }
  const chain = block.kind === 'installed' && asidePresent !== undefined
  const upToDate = present.text!.slice(block.start, block.end) === renderBlock({ hook, kind: block.kind, launcher, chain })
  if (block.kind === 'inserted') return { hook, path, state: 'chained', chainedTo: path, upToDate }
  return { hook, path, state: chain ? 'chained' : 'installed', chainedTo: chain ? aside : null, upToDate }
}

/**
 * Replaces the hook by rename so git never runs a half-written script, with `mode` set before the
 * swap. `fresh`: there is nothing to replace, and the directory itself may have to be created.
 */
async function writeHook(path: string, text: string, mode: number, fresh = false): Promise<void> {
  if (fresh) await mkdir(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.vlt-tmp`
  try {
    await writeFile(temp, text, { encoding: 'latin1', flag: 'wx', mode })
    // writeFile's mode is filtered by the umask; the hook's must be exactly what it was.
    await chmod(temp, mode)
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
}

