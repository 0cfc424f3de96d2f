/**
 * `git vlt history ingest`: brings `.vlt/history/` up to date with the transcripts on disk.
 *
 * Incremental per transcript: an unchanged file (size and mtime) costs one stat; a grown one is
 * read from where its provisional last exchange starts, which is rebuilt together with whatever
 * follows; a file that shrank below that point or whose first bytes changed was rewritten and is
 * read again from the start; a vanished file takes its exchanges, their BM25 documents and their
 * file mentions with it.
 */
import { createHash } from 'node:crypto'
import { open, type FileHandle } from 'node:fs/promises'
import { openRepo, runInRepo, type Repo } from '../git/repo.js'
import { ensureVltDir, withLock } from '../store/index.js'
import { analyzeChunks } from '../search/index.js'
import type { Chunk } from '../parse/types.js'
import { claudeConfigDir, findTranscripts, worktreeRoots, type TranscriptFile } from './locate.js'
import { exchangeMentions, type MentionContext } from './mentions.js'
import { parseTranscript } from './parse.js'
import { redactExchange, redactMeta } from './redact.js'
import {
  docName, emptyHistoryIndex, loadHistoryIndex, readTranscriptExchanges, removeTranscriptRecord, saveHistoryIndex,
  transcriptKey, writeTranscriptExchanges, type ExchangeEntry, type HistoryIndex, type TranscriptState,
} from './store.js'
import { addLineStats, emptyLineStats, emptySessionMeta, type Exchange, type LineStats } from './types.js'

export interface IngestOptions {
  /** Claude's config folder; default `$CLAUDE_CONFIG_DIR` or `~/.claude`. */
  configDir?: string
  warn?: (message: string) => void
}

export interface IngestResult {
  /** Sessions in the index after ingest (a session's subagents count with it). */
  sessions: number
  transcripts: number
  exchanges: number
  /** Exchanges not in the index before (a rebuilt provisional exchange is not new). */
  newExchanges: number
  /** Sessions with at least one transcript read this time. */
  updatedSessions: number
  /** Sessions whose every transcript disappeared. */
  removedSessions: number
  /** Transcripts re-read from the start because they were rewritten. */
  rewrittenTranscripts: number
  lines: number
  /** Lines that carry nothing to index, by type. */
  ignoredLines: Record<string, number>
  /** Lines of types this build does not know, by type (skipped). */
  unknownLines: Record<string, number>
  malformedLines: number
  /** Unfinished last lines left for the next ingest. */
  truncatedLines: number
  durationMs: number
}

/** Prompt and reply excerpts stored for search results. */
export const EXCERPT_CHARS = 240
/** Tool input text indexed per call: enough for paths, commands and patterns, not whole files written. */
const TOOL_INPUT_CHARS = 1000
const ERROR_RESULT_CHARS = 300
const HEAD_HASH_BYTES = 1024
/**
 * File times tick coarsely (a few ms on Linux, seconds on some filesystems): a transcript rewritten
 * to the same size within the tick of our last read would look unchanged. As git does with its
 * index, a file modified this close to the read is re-checked next time (from its resume point).
 */
const RACY_MS = 2000

export async function ingestHistory(cwd: string, options: IngestOptions = {}): Promise<IngestResult> {
  return (await refreshHistory(await openRepo(cwd), options)).result
}

/** Ingests and hands back the up-to-date index, so a search after it does not read it again. */
export async function refreshHistory(repo: Repo, options: IngestOptions = {}): Promise<{ result: IngestResult; index: HistoryIndex }> {
  const started = performance.now()
  await ensureVltDir(repo.vltDir)
  const refreshed = await withLock(repo.vltDir, () => ingestLocked(repo, options), { name: 'history' })
  refreshed.result.durationMs = Math.round(performance.now() - started)
  return refreshed
}

async function ingestLocked(repo: Repo, options: IngestOptions): Promise<{ result: IngestResult; index: HistoryIndex }> {
  const vltDir = repo.vltDir
  const stored = await loadHistoryIndex(vltDir, options.warn)
  const index = stored ?? emptyHistoryIndex()
  const roots = await worktreeRoots(repo)
  const files = await findTranscripts(roots, options.configDir ?? claudeConfigDir())
  const readAt = Date.now()
  const catalog = new Catalog(index)
  const stats = emptyLineStats()
  const updated = new Set<string>()
  let newExchanges = 0
  let rewritten = 0

  const present = new Set(files.map((file) => file.path))
  const sessionsBefore = catalog.sessionIds()
  let changed = stored === undefined
  for (const state of index.transcripts) {
    if (present.has(state.path)) continue
    changed = true
    catalog.dropTranscript(state.key, 0)
    catalog.states.delete(state.path)
    await removeTranscriptRecord(vltDir, state.key)
  }

  let context: MentionContext | undefined
  for (const file of files) {
    const state = catalog.states.get(file.path)
    if (state && state.size === file.size && state.mtimeMs === file.mtimeMs && !state.racy) continue
    changed = true
    context ??= { roots, knownFiles: await repoFiles(repo) }
    const outcome = await ingestTranscript(vltDir, file, state, catalog, context, file.mtimeMs > readAt - RACY_MS)
    newExchanges += outcome.newExchanges
    if (outcome.rewritten) rewritten++
    addLineStats(stats, outcome.stats)
    if (outcome.sessionId) updated.add(outcome.sessionId)
  }

  const sessionsAfter = catalog.sessionIds()
  const saved = catalog.toIndex()
  // A search refreshes before it reads: when nothing changed, it must not rewrite anything.
  if (changed) await saveHistoryIndex(vltDir, saved)
  const result: IngestResult = {
    sessions: sessionsAfter.size,
    transcripts: saved.transcripts.length,
    exchanges: saved.exchanges.length,
    newExchanges,
    updatedSessions: updated.size,
    removedSessions: [...sessionsBefore].filter((id) => !sessionsAfter.has(id)).length,
    rewrittenTranscripts: rewritten,
    lines: stats.lines,
    ignoredLines: stats.ignored,
    unknownLines: stats.unknown,
    malformedLines: stats.malformed,
    truncatedLines: stats.truncated,
    durationMs: 0,
  }
  return { result, index: saved }
}

interface TranscriptOutcome {
  sessionId: string
  newExchanges: number
  rewritten: boolean
  stats: LineStats
}

async function ingestTranscript(vltDir: string, file: TranscriptFile, state: TranscriptState | undefined, catalog: Catalog, context: MentionContext, racy: boolean): Promise<TranscriptOutcome> {
  const key = state?.key ?? transcriptKey(file.path)
  const handle = await open(file.path, 'r')
  let buf: Buffer
  let head: { hash: string; bytes: number }
  let from = 0
  let fromLine = 0
  let kept: Exchange[] = []
  let rewritten = false
  try {
    // Size from the open file: it may have grown since the directory scan.
    const size = (await handle.stat()).size
    // The same prefix as last time, so a small file that only grew still compares equal.
    const sameHead = state !== undefined && size >= state.headBytes && (await hashHead(handle, state.headBytes)) === state.headHash
    head = { hash: await hashHead(handle, Math.min(size, HEAD_HASH_BYTES)), bytes: Math.min(size, HEAD_HASH_BYTES) }
    if (state && sameHead && size >= state.resumeOffset) {
      const stored = await readTranscriptExchanges(vltDir, key)
      if (stored !== undefined || state.resumeLine === 0) {
        from = state.resumeOffset
        fromLine = state.resumeLine
        kept = (stored ?? []).filter((exchange) => exchange.startLine < fromLine)
      }
    }
    rewritten = state !== undefined && from === 0 && state.resumeOffset > 0
    buf = Buffer.allocUnsafe(size - from)
    let read = 0
    while (read < buf.length) {
      const { bytesRead } = await handle.read(buf, read, buf.length - read, from + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    buf = buf.subarray(0, read)
  } finally {
    await handle.close()
  }

  const previous = new Set(catalog.entriesOf(key).map((entry) => entry.id))
  catalog.dropTranscript(key, fromLine)
  const meta = from > 0 && state ? state.meta : emptySessionMeta()
  const parsed = parseTranscript(buf, from, fromLine, file, meta)
  redactMeta(parsed.meta)
  for (const exchange of parsed.exchanges) {
    redactExchange(exchange)
    exchange.mentions = exchangeMentions(exchange, context)
  }
  const all = [...kept, ...parsed.exchanges]
  const last = parsed.exchanges.at(-1)
  const sessionId = all.find((exchange) => exchange.sessionId)?.sessionId ?? file.sessionId
  catalog.states.set(file.path, {
    path: file.path,
    key,
    sessionId,
    agentId: file.agentId,
    isSidechain: file.isSidechain,
    size: file.size,
    mtimeMs: file.mtimeMs,
    racy,
    headHash: head.hash,
    headBytes: head.bytes,
    resumeOffset: last ? last.startOffset : from,
    resumeLine: last ? last.startLine : fromLine,
    meta: parsed.meta,
  })
  const title = parsed.meta.title || words(all.find((exchange) => exchange.kind === 'prompt' && exchange.prompt)?.prompt ?? '', 12)
  // A title line may come long after the first exchanges (ai-title, custom-title): results show the current one.
  for (const entry of catalog.entriesOf(key)) entry.title = title
  let newExchanges = 0
  for (const exchange of parsed.exchanges) {
    if (!previous.has(exchange.id)) newExchanges++
    catalog.add(key, exchange, title)
  }
  await writeTranscriptExchanges(vltDir, key, all)
  // A racy re-check that found the same bytes updated nothing.
  const unchanged = state !== undefined && state.size === file.size && state.mtimeMs === file.mtimeMs
  return { sessionId: unchanged ? '' : sessionId, newExchanges, rewritten, stats: parsed.stats }
}

/** The index being updated: catalog entries grouped by transcript, BM25 patched in place. */
class Catalog {
  readonly states: Map<string, TranscriptState>
  private readonly byTranscript = new Map<string, ExchangeEntry[]>()
  private nextDoc: number

  constructor(private readonly index: HistoryIndex) {
    this.states = new Map(index.transcripts.map((state) => [state.path, state]))
    this.nextDoc = index.nextDoc
    for (const entry of index.exchanges) {
      let list = this.byTranscript.get(entry.transcript)
      if (!list) this.byTranscript.set(entry.transcript, (list = []))
      list.push(entry)
    }
  }

  entriesOf(key: string): ExchangeEntry[] {
    return this.byTranscript.get(key) ?? []
  }

  sessionIds(): Set<string> {
    const ids = new Set<string>()
    for (const list of this.byTranscript.values()) for (const entry of list) ids.add(entry.sessionId)
    return ids
  }

  /** Removes a transcript's exchanges from `fromLine` on, with their BM25 documents. */
  dropTranscript(key: string, fromLine: number): void {
    const list = this.byTranscript.get(key)
    if (!list) return
    const keep: ExchangeEntry[] = []
    for (const entry of list) {
      if (entry.startLine < fromLine) keep.push(entry)
      else this.index.bm25.removeFile(entry.doc)
    }
    if (keep.length) this.byTranscript.set(key, keep)
    else this.byTranscript.delete(key)
  }

  add(key: string, exchange: Exchange, title: string): void {
    const doc = docName(this.nextDoc++)
    this.index.bm25.addFile(doc, analyzeChunks([exchangeChunk(exchange, title)]))
    const touched: string[] = []
    const discussed: string[] = []
    for (const mention of exchange.mentions) {
      if (mention.kind === 'edit' || mention.kind === 'read' || mention.kind === 'search') {
        if (!touched.includes(mention.path)) touched.push(mention.path)
      }
    }
    for (const mention of exchange.mentions) {
      if (!touched.includes(mention.path) && !discussed.includes(mention.path)) discussed.push(mention.path)
    }
    const entry: ExchangeEntry = {
      id: exchange.id,
      doc,
      transcript: key,
      sessionId: exchange.sessionId,
      agentId: exchange.agentId,
      isSidechain: exchange.isSidechain,
      kind: exchange.kind,
      timestamp: exchange.timestamp,
      time: Date.parse(exchange.timestamp) || 0,
      branch: exchange.branch,
      title,
      prompt: excerpt(exchange.prompt),
      reply: excerpt(exchange.reply),
      touched,
      discussed,
      tools: [...new Set(exchange.toolCalls.map((call) => call.name))],
      startLine: exchange.startLine,
      provisional: exchange.provisional,
    }
    let list = this.byTranscript.get(key)
    if (!list) this.byTranscript.set(key, (list = []))
    list.push(entry)
  }

  toIndex(): HistoryIndex {
    return {
      transcripts: [...this.states.values()],
      exchanges: [...this.byTranscript.values()].flat(),
      nextDoc: this.nextDoc,
      bm25: this.index.bm25,
    }
  }
}

/**
 * An exchange as a BM25 document: the human prompt as its docstring (weighted above the rest), and
 * as body the session title, the reply, the tools used with their inputs, and errors. The title is
 * not the name field: shared by every exchange of a session at the name's weight, it outweighed
 * what each exchange says, and the shortest exchange of a session won any query naming its title.
 */
export function exchangeChunk(exchange: Exchange, title: string): Chunk {
  const body = [title, exchange.reply]
  for (const call of exchange.toolCalls) {
    body.push(`${call.name} ${inputText(call.input)}`)
    if (call.isError) body.push(call.result.slice(0, ERROR_RESULT_CHARS))
  }
  return {
    kind: 'block',
    name: '',
    qualifiedName: '',
    language: 'text',
    startLine: exchange.startLine + 1,
    endLine: exchange.endLine + 1,
    imports: '',
    classContext: '',
    signature: '',
    decorators: '',
    docstring: exchange.prompt,
    body: body.join('\n'),
    tokenCount: 0,
  }
}

function inputText(input: unknown): string {
  if (typeof input !== 'object' || input === null) return typeof input === 'string' ? input.slice(0, TOOL_INPUT_CHARS) : ''
  let text = ''
  for (const value of Object.values(input as Record<string, unknown>)) {
    if (text.length >= TOOL_INPUT_CHARS) break
    if (typeof value === 'string') text += `${value} `
    else if (Array.isArray(value) || (typeof value === 'object' && value !== null)) text += `${inputText(value)} `
  }
  return text.slice(0, TOOL_INPUT_CHARS)
}

export function excerpt(text: string, chars = EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat
}

function words(text: string, count: number): string {
  return text.replace(/\s+/g, ' ').trim().split(' ').slice(0, count).join(' ')
}

async function hashHead(handle: FileHandle, bytes: number): Promise<string> {
  const head = Buffer.alloc(bytes)
  await handle.read(head, 0, head.length, 0)
  return createHash('sha1').update(head).digest('hex')
}

/** Tracked files of the repository, to accept paths only hinted at in commands and prose. */
async function repoFiles(repo: Repo): Promise<Set<string>> {
  if (repo.root === null) return new Set()
  const out = await runInRepo(repo, ['ls-files', '-z'])
  return new Set(out.toString('utf8').split('\0').filter(Boolean))
}
