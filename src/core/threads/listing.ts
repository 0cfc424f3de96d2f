/**
 * Every thread of `.vlt/threads/` at once, for listing and searching. The folder comes with the
 * repository, so it may hold anything a hand edit, a bad merge or a hostile clone put there: each
 * file is read on its own, and one that cannot be read or is not a thread is reported (one line
 * naming it) and left out, never hiding the others.
 */
import { UsageError } from '../errors.js'
import { ConfinementError } from '../store/index.js'
import { readThread, threadNames, threadPath, type Thread } from './store.js'

export interface ThreadListing {
  name: string
  title: string
  entries: number
  /** Timestamp of the newest entry, else the creation time. */
  lastActivity: string
}

export interface ReadThreads {
  /** The threads that could be read, by name. */
  threads: Thread[]
  /** One line per file left out, naming it and why. */
  warnings: string[]
}

export async function readThreads(vltDir: string): Promise<ReadThreads> {
  const names = await threadNames(vltDir)
  const settled = await Promise.allSettled(names.map((name) => readThread(vltDir, name)))
  const threads: Thread[] = []
  const warnings: string[] = []
  settled.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') threads.push(outcome.value)
    else warnings.push(`${unreadable(threadPath(vltDir, names[i]!), outcome.reason)}; left out`)
  })
  return { threads, warnings }
}

export async function listThreads(vltDir: string): Promise<{ threads: ThreadListing[]; warnings: string[] }> {
  const { threads, warnings } = await readThreads(vltDir)
  return {
    threads: threads.map((thread) => ({
      name: thread.name,
      title: thread.title,
      entries: thread.entries.length,
      lastActivity: thread.entries.reduce((latest, entry) => (entry.timestamp > latest ? entry.timestamp : latest), thread.created),
    })),
    warnings,
  }
}

/** Why a thread file was not read: what the file holds, or the file system's refusal. Anything else is a bug and is thrown. */
function unreadable(path: string, error: unknown): string {
  // The parser's refusals, and confinement's (a link, a FIFO, a directory named like a thread), already name the file.
  if (error instanceof UsageError || error instanceof ConfinementError) return error.message
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (typeof code === 'string') return `${path}: cannot be read (${code})`
  throw error
}
