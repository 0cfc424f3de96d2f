/**
 * Just-in-time notes index: list the notes, and when that set of (path, content hash) has no index
 * yet, patch the previous one — only notes whose content changed are read and parsed (or their
 * artifact fetched by hash), BM25 drops and re-adds only those, and links are re-resolved over
 * all notes because a new note can satisfy an old dangling link.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { loadConfig } from '../config/index.js'
import { classifyContent } from '../files/index.js'
import { BlobReader, openRepo, type Repo } from '../git/index.js'
import type { Chunk } from '../parse/types.js'
import { analyzeChunks, Bm25Index } from '../search/index.js'
import { ensureVltDir } from '../store/index.js'
import { notesConfig, type NotesConfig } from './config.js'
import { LinkResolver } from './links.js'
import { parseNote } from './markdown.js'
import { listNotes, type NoteFile, type NoteListing } from './sources.js'
import {
  NOTE_ARTIFACT_VERSION,
  NOTES_INDEX_VERSION,
  readArtifact,
  readIndex,
  readLatestIndex,
  writeArtifact,
  writeIndex,
  type IndexedNote,
  type NoteArtifact,
  type NotesIndexRecord,
} from './store.js'

export interface NotesOptions {
  /** Notes settings (folders, include); defaults for what is absent. */
  config?: Partial<NotesConfig>
  /** Told about folders that are missing and notes that cannot be indexed. */
  warn?: (message: string) => void
}

/** What the index covers and what this call had to do to bring it up to date. */
export interface NotesFreshness {
  /** HEAD's tree; uncommitted notes are included on top of it. */
  treeHash: string
  /** Identifies the exact set of notes indexed (see store.ts). */
  key: string
  notes: number
  /** Repository notes taken from the working tree because they differ from HEAD. */
  dirty: number
  /** Notes read and parsed by this call. */
  parsed: number
  /** Changed notes whose artifact was already stored under their content hash. */
  reused: number
  /** Configured folders found on disk. */
  folders: string[]
  builtAt: string
}

export class NotesIndex {
  private readonly byPath: Map<string, IndexedNote>
  private bm25Index: Bm25Index | undefined
  private backlinkMap: Map<string, Backlink[]> | undefined

  constructor(
    readonly repo: Repo,
    readonly record: NotesIndexRecord,
    readonly freshness: NotesFreshness,
    /** Absolute directory of each configured folder found, by setting. */
    readonly folders: ReadonlyMap<string, string>,
  ) {
    this.byPath = new Map(record.notes.map((note) => [note.path, note]))
  }

  get notes(): readonly IndexedNote[] {
    return this.record.notes
  }

  note(path: string): IndexedNote | undefined {
    return this.byPath.get(path)
  }

  get bm25(): Bm25Index {
    this.bm25Index ??= Bm25Index.fromSnapshot(this.record.bm25, 'notes index')
    return this.bm25Index
  }

  /** The stored artifact of an indexed note; re-parsed from its source if the artifact was lost. */
  async artifact(path: string): Promise<NoteArtifact> {
    const note = this.byPath.get(path)
    if (!note) throw new Error(`not an indexed note: ${path}`)
    return (await readArtifact(this.repo.vltDir, note.hash)) ?? (await buildArtifacts(this.repo, [note], new Map(), () => {}))[0]!.artifact
  }

  /** Notes linking to `path`, in path then line order. */
  backlinks(path: string): Backlink[] {
    if (!this.backlinkMap) {
      this.backlinkMap = new Map()
      for (const note of this.record.notes) {
        note.resolved.forEach((target, i) => {
          if (target === null || target === note.path) return
          const link = note.links[i]!
          const list = this.backlinkMap!.get(target) ?? []
          list.push({ path: note.path, line: link.line, anchor: link.anchor, text: link.text })
          this.backlinkMap!.set(target, list)
        })
      }
    }
    return this.backlinkMap.get(path) ?? []
  }
}

export interface Backlink {
  /** The linking note. */
  path: string
  line: number
  /** The heading the link points at, '' for the whole note. */
  anchor: string
  text: string
}

/** Opens the notes index of the repository containing `cwd`, bringing it up to date first. */
export async function openNotes(cwd: string, options: NotesOptions = {}): Promise<NotesIndex> {
  const repo = await openRepo(cwd)
  const warn = options.warn ?? (() => {})
  // Callers may pass settings (tests, the oracle); otherwise [notes] of vlt.toml applies.
  const config = options.config ? notesConfig(options.config) : (await loadConfig(repo.root ?? repo.gitDir)).notes
  const previous = await readLatestIndex(repo.vltDir)
  const statCache = new Map((previous?.notes ?? []).filter((note) => note.location.kind === 'file').map((note) => [note.path, note]))
  const listing = await listNotes(repo, config, statCache)
  for (const warning of listing.warnings) warn(warning)
  const key = indexKey(listing.notes, config)
  const base = { treeHash: listing.treeHash, key, notes: listing.notes.length, dirty: listing.dirty, folders: [...listing.folders.keys()] }

  const existing = previous?.key === key ? previous : await readIndex(repo.vltDir, key)
  if (existing) {
    // Same content, but files re-hashed because their stat changed: remember the new stat.
    if (listing.contents.size > 0) await writeIndex(repo.vltDir, { ...existing, notes: withLocations(existing.notes, listing.notes) })
    return new NotesIndex(repo, existing, { ...base, parsed: 0, reused: 0, builtAt: existing.builtAt }, listing.folders)
  }
  const { record, parsed, reused } = await buildIndex(repo, listing, previous, key, warn)
  await ensureVltDir(repo.vltDir)
  await writeIndex(repo.vltDir, record)
  return new NotesIndex(repo, record, { ...base, parsed, reused, builtAt: record.builtAt }, listing.folders)
}

function indexKey(notes: readonly NoteFile[], config: NotesConfig): string {
  const hash = createHash('sha1').update(`notes ${NOTES_INDEX_VERSION}.${NOTE_ARTIFACT_VERSION}\0${config.include.join('\0')}\n`)
  for (const note of notes) hash.update(`${note.path}\0${note.hash}\0${note.root}\n`)
  return hash.digest('hex')
}

function withLocations(indexed: IndexedNote[], listed: NoteFile[]): IndexedNote[] {
  const locations = new Map(listed.map((note) => [note.path, note.location]))
  return indexed.map((note) => ({ ...note, location: locations.get(note.path) ?? note.location }))
}

async function buildIndex(
  repo: Repo,
  listing: NoteListing,
  previous: NotesIndexRecord | undefined,
  key: string,
  warn: (message: string) => void,
): Promise<{ record: NotesIndexRecord; parsed: number; reused: number }> {
  const before = new Map((previous?.notes ?? []).map((note) => [note.path, note]))
  const bm25 = previous ? Bm25Index.fromSnapshot(previous.bm25, 'notes index') : new Bm25Index()
  const current = new Set(listing.notes.map((note) => note.path))
  for (const path of before.keys()) if (!current.has(path)) bm25.removeFile(path)

  const unchanged = (note: NoteFile): IndexedNote | undefined => {
    const old = before.get(note.path)
    return old && old.hash === note.hash && old.root === note.root ? old : undefined
  }
  const changed = listing.notes.filter((note) => !unchanged(note))
  const built = await buildArtifacts(repo, changed, listing.contents, warn)
  const fresh = new Map(built.map((entry) => [entry.note.path, entry.artifact]))
  for (const note of changed) bm25.addFile(note.path, fresh.get(note.path)!.analyzed)

  const notes: IndexedNote[] = listing.notes.map((note) => {
    const old = unchanged(note)
    if (old) return { ...old, location: note.location }
    const artifact = fresh.get(note.path)!
    return { ...note, title: artifact.title ?? fileTitle(note.path), tags: artifact.tags, aliases: artifact.aliases, links: artifact.links, resolved: [] }
  })
  const resolver = new LinkResolver(notes)
  for (const note of notes) note.resolved = note.links.map((link) => resolver.resolve(link, note.path, note.root))
  const record: NotesIndexRecord = { key, treeHash: listing.treeHash, builtAt: new Date().toISOString(), notes, bm25: bm25.snapshot() }
  return { record, parsed: built.filter((entry) => entry.parsed).length, reused: built.filter((entry) => !entry.parsed).length }
}

/** Reads stay in flight together (one git process pipelines blob reads), bounded to keep memory flat. */
const READ_BATCH = 64
/** Notes above this size are not indexed (the code index's default). */
const MAX_NOTE_BYTES = 1024 * 1024

interface BuiltArtifact {
  note: NoteFile
  artifact: NoteArtifact
  /** False when the artifact was found under the content hash. */
  parsed: boolean
}

async function buildArtifacts(repo: Repo, notes: readonly NoteFile[], contents: ReadonlyMap<string, Buffer>, warn: (message: string) => void): Promise<BuiltArtifact[]> {
  const built: BuiltArtifact[] = []
  const maxBytes = notes.length > 0 && repo.root ? (await loadConfig(repo.root)).index.maxFileBytes : MAX_NOTE_BYTES
  let reader: BlobReader | undefined
  try {
    for (let start = 0; start < notes.length; start += READ_BATCH) {
      const batch = notes.slice(start, start + READ_BATCH)
      const results = await Promise.all(batch.map(async (note): Promise<BuiltArtifact> => {
        const stored = await readArtifact(repo.vltDir, note.hash)
        if (stored) return { note, artifact: stored, parsed: false }
        let bytes = contents.get(note.path)
        if (!bytes) {
          if (note.location.kind === 'blob') bytes = await (reader ??= new BlobReader(repo)).read(note.location.blob)
          else bytes = await readFile(note.location.file)
        }
        const artifact = noteArtifact(bytes, maxBytes)
        if (artifact.skipped) warn(`note ${note.path} not indexed: ${artifact.skipped}`)
        await writeArtifact(repo.vltDir, note.hash, artifact)
        return { note, artifact, parsed: true }
      }))
      built.push(...results)
    }
  } finally {
    await reader?.close()
  }
  return built
}

/** Parses and analyses one note's bytes; binary, oversized or credential-laden content is kept as an empty note. */
export function noteArtifact(bytes: Buffer, maxBytes: number): NoteArtifact {
  const content = classifyContent(bytes, maxBytes)
  const text = content.ok ? content.text : ''
  const parsed = parseNote(text)
  const lines = text.split('\n')
  const describing = [parsed.title ?? '', ...parsed.aliases, ...parsed.tags].join(' ')
  const chunks = parsed.sections.map((section): Chunk => {
    const body = lines.slice(section.startLine - 1, section.endLine).join('\n')
    return {
      kind: 'block',
      name: section.name,
      qualifiedName: section.heading,
      language: 'text',
      startLine: section.startLine,
      endLine: section.endLine,
      imports: '',
      classContext: '',
      signature: '',
      decorators: '',
      // The note's title, aliases and tags describe every section of it, as a docstring does a function.
      docstring: describing,
      body,
      tokenCount: 0,
    }
  })
  const artifact: NoteArtifact = { ...parsed, text, analyzed: analyzeChunks(chunks) }
  if (!content.ok) artifact.skipped = content.reason
  return artifact
}

/** A note without a title is called by its file name. */
export function fileTitle(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1)
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(0, dot) : base
}

