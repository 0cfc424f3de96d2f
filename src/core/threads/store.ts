/**
 * Threads on disk: `.vlt/threads/<name>.md`, committed with the repository. Writers append under
 * the `threads` lock and replace the file atomically, so concurrent pushes never lose an entry
 * and a reader never sees half of one. Being committed, a thread never receives a secret: every
 * title, description and entry is redacted here, whoever writes it (thread push, MCP, the
 * oracle's session log); entries are redacted on the way out too, for files written by hand.
 */
import { join } from 'node:path'
import { UsageError } from '../errors.js'
import { editDistance } from '../edit-distance.js'
import { redactSecrets } from '../files/index.js'
import { ensureVltDir, listDirConfined, readFileConfined, withLock, writeFileAtomic } from '../store/index.js'
import { newEntryId } from './entry-id.js'
import { recoverEntries } from './recover.js'
import {
  isThreadName,
  parseThread,
  renderEntry,
  renderHeader,
  validateAuthor,
  validateDescription,
  validateEntryText,
  validateThreadName,
  type Entry,
  type EntryType,
  type ParsedThread,
} from './format.js'

/** Lets two branches that both appended entries merge without conflicts (see format.ts). */
export const THREADS_GITATTRIBUTES = `# Written by git-vlt: branches that both append entries to a thread merge by keeping both.
*.md merge=union
`

export interface Thread extends ParsedThread {
  name: string
  path: string
}

export function threadsDir(vltDir: string): string {
  return join(vltDir, 'threads')
}

export function threadPath(vltDir: string, name: string): string {
  return join(threadsDir(vltDir), `${validateThreadName(name)}.md`)
}

export interface NewThread {
  name: string
  title?: string
  description?: string
  now?: Date
}

export async function createThread(vltDir: string, options: NewThread): Promise<Thread> {
  const path = threadPath(vltDir, options.name)
  const title = redacted(oneLine(options.title ?? options.name, 'title'))
  const description = redacted(validateDescription(options.description ?? ''))
  await ensureVltDir(vltDir)
  return withLock(
    vltDir,
    async () => {
      if ((await readOptional(path)) !== undefined) throw new UsageError(`thread ${options.name} already exists (${path})`)
      await ensureGitattributes(vltDir)
      const header = { title, created: (options.now ?? new Date()).toISOString(), description }
      const source = renderHeader(header)
      await writeFileAtomic(path, Buffer.from(source))
      const { broken: _none, ...parsed } = parseThread(source, path)
      return { ...parsed, name: options.name, path }
    },
    { name: 'threads' },
  )
}

export interface NewEntry {
  text: string
  type: EntryType
  author: string
  now?: Date
}

/** Appends one entry; never summarises or embeds (reads do that lazily). */
export async function appendEntry(vltDir: string, name: string, entry: NewEntry): Promise<Entry> {
  const path = threadPath(vltDir, name)
  const text = redacted(validateEntryText(entry.text))
  const author = validateAuthor(entry.author)
  return withLock(
    vltDir,
    async () => {
      const { thread, source, repaired } = await loadThread(vltDir, name, path)
      const now = entry.now ?? new Date()
      const last = thread.entries.at(-1)
      const added: Entry = { id: newEntryId(now.getTime(), last?.id), timestamp: now.toISOString(), author, type: entry.type, text }
      await ensureGitattributes(vltDir)
      // Appending (never rewriting earlier blocks) keeps diffs and merges to the new lines only;
      // a file a merge spliced is the exception: it is written out whole, in order, once.
      const base = repaired ? renderHeader(thread) + thread.entries.map(renderEntry).join('') : source.endsWith('\n') ? source : `${source}\n`
      await writeFileAtomic(path, Buffer.from(base + renderEntry(added)))
      return added
    },
    { name: 'threads' },
  )
}

export async function readThread(vltDir: string, name: string): Promise<Thread> {
  const { thread } = await loadThread(vltDir, name, threadPath(vltDir, name))
  return { ...thread, entries: thread.entries.map((entry) => ({ ...entry, text: redacted(entry.text) })) }
}

function redacted(text: string): string {
  return redactSecrets(text).text
}

/** Parses the file and restores entries a union merge spliced; `repaired` says whether any were. */
async function loadThread(vltDir: string, name: string, path: string): Promise<{ thread: Thread; source: string; repaired: boolean }> {
  const source = await requireSource(vltDir, name, path)
  const { broken, ...parsed } = parseThread(source, path)
  const thread: Thread = { ...parsed, name, path }
  if (broken.length === 0) return { thread, source, repaired: false }
  const recovered = await recoverEntries(path, broken)
  thread.entries = thread.entries.map((entry) => {
    const found = recovered.get(entry.id)
    return found ? { ...entry, text: found.text } : entry
  })
  for (const { id } of broken) {
    const found = recovered.get(id)
    thread.problems.push(
      found
        ? `${path}: entry ${id} was spliced by a merge; its text was recovered from commit ${found.commit.slice(0, 12)} (the next push rewrites the file cleanly)`
        : `${path}: entry ${id} is damaged (a merge or an edit broke its markers) and could not be recovered from git history; check its text`,
    )
  }
  return { thread, source, repaired: recovered.size > 0 }
}

export async function threadNames(vltDir: string): Promise<string[]> {
  // Confined (store/confine.ts): a threads folder that is a link is refused, never listed.
  const files = await listDirConfined(threadsDir(vltDir))
  return files
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.slice(0, -3))
    .filter(isThreadName)
    .sort()
}

async function requireSource(vltDir: string, name: string, path: string): Promise<string> {
  const source = await readOptional(path)
  if (source !== undefined) return source
  throw new UsageError(`no thread named ${name}${await suggestion(vltDir, name)}`)
}

async function suggestion(vltDir: string, name: string): Promise<string> {
  const names = await threadNames(vltDir)
  const close = names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(name.length / 3)) || candidate.includes(name) || name.includes(candidate))
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1))
  if (close.length > 0) return ` — did you mean ${close[0].candidate}? (\`git vlt thread list\` shows all ${names.length})`
  return ` — create it with \`git vlt thread new ${name}\`${names.length > 0 ? ` or see \`git vlt thread list\`` : ''}`
}

async function ensureGitattributes(vltDir: string): Promise<void> {
  const path = join(threadsDir(vltDir), '.gitattributes')
  if ((await readOptional(path)) !== THREADS_GITATTRIBUTES) await writeFileAtomic(path, Buffer.from(THREADS_GITATTRIBUTES))
}

/** A thread file that is a link (to a private key, a FIFO) is refused, never read (store/confine.ts). */
async function readOptional(path: string): Promise<string | undefined> {
  return (await readFileConfined(path))?.toString('utf8')
}

function oneLine(value: string, what: string): string {
  const trimmed = value.trim()
  if (trimmed === '' || /[\r\n]/.test(trimmed)) throw new UsageError(`the thread ${what} must be one non-empty line`)
  return trimmed
}
