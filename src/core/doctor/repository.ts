import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { formatBytes } from '../cli/format.js'
import { daemonReport, resolveTarget } from '../daemon/client.js'
import type { Repo } from '../git/index.js'
import { hooksStatus } from '../hooks/index.js'
import { indexStatus } from '../index/index.js'
import { vltPaths, writeFileAtomic } from '../store/index.js'
import { failed, passed, type DoctorCheck } from './types.js'

export async function checkIndex(cwd: string): Promise<DoctorCheck> {
  const status = await indexStatus(cwd, () => {})
  if (!status.indexed) return failed('index', 'nothing indexed yet', 'git vlt coderag init')
  if (!status.integrity.complete) {
    return failed('index', `${status.integrity.problems.length} record(s) missing or damaged: ${status.integrity.problems[0]}`, 'git vlt coderag verify')
  }
  const what = `${status.files} files, ${status.chunks} chunks, ${status.symbols} symbols`
  // Queries catch up by themselves: behind HEAD is a state, not a fault.
  if (status.stale) return passed('index', `${what}; behind HEAD or the working tree: the next query catches up`, 'git vlt coderag sync')
  return passed('index', `${what}; up to date with HEAD`)
}

export async function checkHooks(cwd: string, repo: Repo): Promise<DoctorCheck> {
  const report = await hooksStatus(cwd)
  const ours = report.hooks.filter((hook) => hook.state === 'installed' || hook.state === 'chained')
  const missing = report.hooks.filter((hook) => !ours.includes(hook)).map((hook) => hook.hook)
  const outdated = ours.filter((hook) => !hook.upToDate).map((hook) => hook.hook)
  if (missing.length > 0) return failed('hooks', `not installed in ${report.dir}: ${missing.join(', ')} (without them the index catches up only when queried)`, 'git vlt hooks install')
  if (outdated.length > 0) return failed('hooks', `installed by another build of git-vlt: ${outdated.join(', ')}`, 'git vlt hooks install')
  const links = await linksTheHooksSkip(repo.vltDir)
  if (links.length > 0) {
    return failed('hooks', `installed, but they queue nothing or start no background indexer: ${links.join(', ')} ${links.length === 1 ? 'is a symbolic link' : 'are symbolic links'} (never written through; a cloned repository can plant one)`, `rm ${links.join(' ')}`)
  }
  return passed('hooks', `${ours.map((hook) => hook.hook).join(', ')} installed by this build`)
}

/**
 * The paths under `.vlt/` that the hooks refuse to go through when they are links (templates/hooks/
 * vlt-hook.sh's `nolink`): the hook then exits quietly, as it must never fail or print in a git
 * command, so this is where the user learns why the index only catches up when queried.
 */
const HOOK_PATHS = ['queue', 'queue/indexer-state.json', 'queue/indexer.pid', 'logs', 'logs/indexer.log', 'logs/indexer.log.1']

async function linksTheHooksSkip(vltDir: string): Promise<string[]> {
  if (await isLink(vltDir)) return [vltDir]
  const links: string[] = []
  for (const path of HOOK_PATHS.map((name) => join(vltDir, name))) if (await isLink(path)) links.push(path)
  return links
}

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null))?.isSymbolicLink() ?? false
}

export async function checkDaemon(cwd: string): Promise<DoctorCheck> {
  try {
    const report = await daemonReport(await resolveTarget(cwd))
    if (!report.enabled) return passed('daemon', 'off (GIT_VLT_DAEMON=0 or [query] daemon = false): queries run in process')
    const daemon = report.daemon
    if (daemon === null) return passed('daemon', 'not running: the next query starts it')
    if (!daemon.current) return passed('daemon', `pid ${daemon.pid} was started by another build: the next query replaces it`)
    return passed('daemon', `pid ${daemon.pid} running since ${daemon.startedAt}, ${daemon.served} queries served`)
  } catch (error) {
    return failed('daemon', (error as Error).message.split('\n')[0]!, 'git vlt daemon stop; its log is .vlt/run/daemon.log')
  }
}

/** Writes and removes a file in `.vlt/` the way every record is written (atomic, confined). */
export async function checkWritable(repo: Repo): Promise<DoctorCheck> {
  const where = repo.vltDir
  if (!(await lstat(where).catch(() => null))) return passed('writable', `${where} does not exist yet: git vlt coderag init creates it`)
  const probe = join(vltPaths(where).root, `doctor-${process.pid}.probe`)
  try {
    await writeFileAtomic(probe, Buffer.from('ok\n'), { durable: false })
    await unlink(probe)
    return passed('writable', `${where} is writable`)
  } catch (error) {
    return failed('writable', `cannot write in ${where}: ${(error as Error).message.split('\n')[0]}`, `make ${where} a real directory you can write to`)
  }
}

export async function checkSize(repo: Repo): Promise<DoctorCheck> {
  const bytes = await diskUsage(repo.vltDir)
  return passed('size', `${formatBytes(bytes)} in ${repo.vltDir}`, bytes > 0 ? 'git vlt gc prunes old trees' : null)
}

/** Bytes of the regular files under `dir`, links not followed. */
async function diskUsage(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  let total = 0
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += await diskUsage(path)
    else if (entry.isFile()) total += (await lstat(path)).size
  }
  return total
}
