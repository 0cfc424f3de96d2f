/**
 * Auto-detection: a repository that offers a SCIP index (`index.scip` at its root, or `[scip]
 * path`) has it imported by the first query after it appears or changes — newer than the imported
 * record — so `def`/`refs` answer from it without a command. The file must resolve inside the
 * repository (a committed symbolic link aimed at `~/.ssh` is not followed); a corrupt one costs
 * one warning and the answers stay syntactic.
 */
import { promises as fs } from 'node:fs'
import { join, sep } from 'node:path'
import { runInRepo } from '../git/index.js'
import type { IndexContext } from '../index/context.js'
import { EnvironmentFault, LockBusyError, takeFaultNotice } from '../store/index.js'
import { importScip, ScipImportError } from './import.js'

/** The repository's SCIP file, resolved inside it, or null when there is none (or it leads out). */
export async function offeredScipFile(index: IndexContext): Promise<string | null> {
  const root = index.repo.root
  if (root === null) return null
  const candidate = join(root, index.config.scip.path)
  try {
    const [real, realRoot] = await Promise.all([fs.realpath(candidate), fs.realpath(root)])
    return real.startsWith(realRoot + sep) ? candidate : null
  } catch {
    return null
  }
}

/** Imports the offered SCIP file when it is newer than what was imported last (or nothing was). */
export async function refreshOfferedScip(index: IndexContext, warn: (message: string) => void): Promise<void> {
  const file = await offeredScipFile(index)
  if (file === null) return
  const [offered, imported] = await Promise.all([mtimeOf(file), mtimeOf(index.paths.scipIndex)])
  if (offered === null || (imported !== null && imported >= offered)) return
  try {
    await importScip(index, file, { auto: true, commit: await builtFor(index, file), warn, lockWaitMs: index.config.query.lockWaitMs })
  } catch (error) {
    // Another run writing the index, or a `.vlt/` that cannot be written: the query answers as it would without the file.
    if (error instanceof LockBusyError) return
    if (error instanceof EnvironmentFault) {
      takeFaultNotice()
      warn(`warning: ${file} could not be imported (${error.message}); answering from the syntactic index`)
      return
    }
    if (!(error instanceof ScipImportError)) throw error
    // Not imported: the same file is tried again by the next query, which says so again.
    warn(`warning: ${error.message}; answering from the syntactic index`)
  }
}

/**
 * The commit a committed, unmodified SCIP file was built for: the one that last changed it (a CI
 * job commits the index of the tree it ran on). Any other (untracked, edited) is taken as HEAD's.
 */
async function builtFor(index: IndexContext, file: string): Promise<string | undefined> {
  try {
    const relative = file.slice(index.repo.root!.length + 1)
    const status = (await runInRepo(index.repo, ['status', '--porcelain', '-z', '--', relative])).toString('utf8')
    if (status !== '') return undefined
    const last = (await runInRepo(index.repo, ['log', '-1', '--format=%H', '--', relative])).toString('utf8').trim()
    return last === '' ? undefined : last
  } catch {
    return undefined
  }
}

async function mtimeOf(path: string): Promise<number | null> {
  try {
    return (await fs.stat(path)).mtimeMs
  } catch {
    return null
  }
}
