/**
 * What the Librarian does to files, and the ledger of it. Notes are written atomically into the
 * notes folders (shelves.ts) and left uncommitted for the user to review; thread entries go through
 * the thread store (locked, appended, redacted). Two rules protect the user's work from a model:
 * an existing note is overwritten only when the Librarian read it in this run and it has not
 * changed since (a note whose secrets were hidden from the model is never overwritten: the model's
 * copy has lost them), and a move never replaces a file. Secrets in what the model writes are
 * redacted, as the thread store does, and the write says how many.
 */
import { createHash } from 'node:crypto'
import { link, lstat, readFile, unlink } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import { redactSecrets, resolveInRepo } from '../files/index.js'
import { UsageError } from '../errors.js'
import { appendEntry, createThread, type Entry, type EntryType } from '../threads/index.js'
import { ensureDirSync, listFilesConfined, writeFileAtomic } from '../store/index.js'
import { relinked } from './relink.js'
import { ShelfError, shelvedPath } from './shelves.js'

export interface LibrarianWrite {
  /** create: a new note; update: a note rewritten; move: a note renamed (from → path); append: a thread entry. */
  action: 'create' | 'update' | 'move' | 'append'
  /** Repo-relative, '/'-separated. */
  path: string
  /** Size of what was written: the note, or the entry's text. */
  bytes: number
  /** The note's previous path, for a move. */
  from?: string
  /** Secrets replaced by a redaction marker in what was written. */
  redacted?: number
  /** Links changed to follow a moved note (for an update the move caused). */
  relinked?: number
}

/** A note as the model is given it: secrets redacted. */
export interface ReadNote {
  path: string
  text: string
  redactions: number
}

const MARKDOWN = /\.(md|markdown)$/i

export class Desk {
  readonly writes: LibrarianWrite[] = []
  /** Notes read (or written) in this run: their content hash then, and whether the model saw them whole. */
  private readonly seen = new Map<string, { hash: string; whole: boolean }>()
  /**
   * Writes one at a time, in the order the model called them: a turn's calls run in parallel, and
   * two writes of one note must not both pass the read-first check, nor the ledger's order vary.
   */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly root: string,
    readonly vltDir: string,
    readonly shelves: readonly string[],
  ) {}

  /** Any markdown file of the repository (not under .git or .vlt), redacted. */
  async readNote(input: string): Promise<ReadNote> {
    const path = resolveInRepo(this.root, input, 'note')
    if (!MARKDOWN.test(path) || path.split('/').some((segment) => /^\.(git|vlt)$/i.test(segment))) throw new ShelfError(`${JSON.stringify(input)} is not a markdown note of the repository`)
    const bytes = await readRegular(join(this.root, path), input)
    const { text, redactions } = redactSecrets(bytes.toString('utf8'))
    this.seen.set(path, { hash: digest(bytes), whole: redactions === 0 })
    return { path, text, redactions }
  }

  /** The notes in the Librarian's folders, repo-relative. */
  async listNotes(): Promise<string[]> {
    const lists = await Promise.all(this.shelves.map((shelf) => listFilesConfined(join(this.root, shelf))))
    const prefix = this.root.length + 1
    return lists.flat().map((file) => file.slice(prefix).split('\\').join('/')).filter((path) => MARKDOWN.test(path)).sort()
  }

  writeNote(input: string, content: string): Promise<LibrarianWrite> {
    return this.serially(() => this.write(input, content))
  }

  private async write(input: string, content: string): Promise<LibrarianWrite> {
    const path = shelvedPath(this.root, this.shelves, input)
    const absolute = join(this.root, path)
    const existing = await readOptional(absolute)
    if (existing !== undefined) {
      const read = this.seen.get(path)
      if (!read) throw new ShelfError(`${path} exists and was not read in this session: read it with read_note first (a note is only overwritten by someone who has seen it)`)
      if (!read.whole) throw new ShelfError(`${path} holds secret-looking text that was hidden from you; it is left for the user to edit by hand`)
      if (read.hash !== digest(existing)) throw new ShelfError(`${path} changed since you read it: read it again before writing`)
    }
    const { text, redactions } = redactSecrets(content)
    const bytes = Buffer.from(text.endsWith('\n') ? text : `${text}\n`)
    await writeFileAtomic(absolute, bytes)
    this.seen.set(path, { hash: digest(bytes), whole: true })
    const earlier = this.writes.find((write) => write.path === path && (write.action === 'create' || write.action === 'update'))
    return this.record({ action: earlier?.action === 'create' || existing === undefined ? 'create' : 'update', path, bytes: bytes.length, ...(redactions > 0 ? { redacted: redactions } : {}) }, earlier)
  }

  /**
   * Renames a note inside the folders; the destination must not exist (a hard link refuses to
   * replace one). Returns the move and the notes whose links were changed to follow it.
   */
  moveNote(fromInput: string, toInput: string): Promise<{ moved: LibrarianWrite; relinked: string[] }> {
    return this.serially(() => this.move(fromInput, toInput))
  }

  private async move(fromInput: string, toInput: string): Promise<{ moved: LibrarianWrite; relinked: string[] }> {
    const from = shelvedPath(this.root, this.shelves, fromInput)
    const to = shelvedPath(this.root, this.shelves, toInput)
    if (from === to) throw new ShelfError(`${from} is already there`)
    const source = join(this.root, from)
    const info = await lstat(source).catch(() => undefined)
    if (!info) throw new ShelfError(`${from} does not exist`)
    const target = join(this.root, to)
    ensureDirSync(dirname(target))
    try {
      await link(source, target)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ShelfError(`${to} already exists; a move never replaces a note`)
      throw error
    }
    await unlink(source)
    const read = this.seen.get(from)
    this.seen.delete(from)
    if (read) this.seen.set(to, read)
    const moved = this.record({ action: 'move', path: to, from, bytes: info.size })
    return { moved, relinked: await this.relink(from, to) }
  }

  /**
   * Keeps the links of the notes in the folders pointing at a note moved from `from` to `to`
   * (relink.ts); each note changed is an update in the ledger, and the model must read it again
   * before writing it (its copy has the old links).
   */
  private async relink(from: string, to: string): Promise<string[]> {
    const notes = await Promise.all((await this.listNotes()).map(async (path) => ({ path, text: (await readRegular(join(this.root, path), path)).toString('utf8') })))
    const changed = relinked(notes, from, to)
    for (const note of changed) {
      const bytes = Buffer.from(note.text)
      await writeFileAtomic(join(this.root, note.path), bytes)
      this.seen.delete(note.path)
      const earlier = this.writes.find((write) => write.path === note.path && (write.action === 'create' || write.action === 'update'))
      this.record({ action: earlier?.action ?? 'update', path: note.path, bytes: bytes.length, relinked: note.links }, earlier)
    }
    return changed.map((note) => note.path)
  }

  /** A note listing others with a line each, links relative to the index's folder. */
  writeIndex(input: string, title: string, intro: string, items: ReadonlyArray<{ path: string; description: string }>): Promise<LibrarianWrite> {
    return this.serially(() => this.index(input, title, intro, items))
  }

  private async index(input: string, title: string, intro: string, items: ReadonlyArray<{ path: string; description: string }>): Promise<LibrarianWrite> {
    const path = shelvedPath(this.root, this.shelves, input)
    const lines: string[] = []
    for (const item of items) {
      const target = resolveInRepo(this.root, item.path, 'indexed note')
      if (!(await lstat(join(this.root, target)).catch(() => undefined))) throw new ShelfError(`${item.path} does not exist; an index links only to existing notes`)
      const href = posix.relative(posix.dirname(path), target).split('/').map(encodeURIComponent).join('/')
      const label = posix.basename(target).replace(MARKDOWN, '').replace(/[[\]\\]/g, '\\$&')
      lines.push(`- [${label}](${href})${item.description.trim() ? ` — ${oneLine(item.description)}` : ''}`)
    }
    const body = [`# ${oneLine(title)}`, ...(intro.trim() ? [intro.trim()] : []), lines.join('\n')].join('\n\n')
    return this.write(path, body)
  }

  /** One entry appended to a thread, created when missing; the store redacts and locks. */
  appendThread(name: string, text: string, type: EntryType, title: string | undefined): Promise<{ write: LibrarianWrite; entry: Entry; created: boolean }> {
    return this.serially(() => this.append(name, text, type, title))
  }

  private async append(name: string, text: string, type: EntryType, title: string | undefined): Promise<{ write: LibrarianWrite; entry: Entry; created: boolean }> {
    const entry = { text, type, author: 'librarian' }
    let created = false
    let added: Entry
    try {
      added = await appendEntry(this.vltDir, name, entry)
    } catch (error) {
      if (!(error instanceof UsageError) || !error.message.startsWith(`no thread named ${name}`)) throw error
      await createThread(this.vltDir, { name, title }).catch((raced: unknown) => {
        // Created by someone else meanwhile: append to theirs.
        if (!(raced instanceof UsageError) || !raced.message.includes('already exists')) throw raced
      })
      created = true
      added = await appendEntry(this.vltDir, name, entry)
    }
    const redactions = redactSecrets(text).redactions
    const write = this.record({ action: 'append', path: `.vlt/threads/${name}.md`, bytes: Buffer.byteLength(added.text), ...(redactions > 0 ? { redacted: redactions } : {}) })
    return { write, entry: added, created }
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const done = this.queue.then(work)
    this.queue = done.catch(() => {})
    return done
  }

  /** Adds a write to the ledger, or updates the record of a note written before in this run. */
  private record(write: LibrarianWrite, earlier?: LibrarianWrite): LibrarianWrite {
    if (!earlier) {
      this.writes.push(write)
      return write
    }
    Object.assign(earlier, write)
    return earlier
  }
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

async function readRegular(path: string, input: string): Promise<Buffer> {
  const info = await lstat(path).catch(() => undefined)
  if (!info) throw new ShelfError(`${JSON.stringify(input)} does not exist`)
  if (!info.isFile()) throw new ShelfError(`${JSON.stringify(input)} is not a regular file`)
  return readFile(path)
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  const info = await lstat(path).catch(() => undefined)
  return info ? readFile(path) : undefined
}
