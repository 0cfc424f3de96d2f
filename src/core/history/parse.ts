/**
 * Transcript lines → exchanges. The format is internal to Claude Code and changes between
 * versions, so every field is read defensively and one bad line never stops the rest.
 *
 * Traps handled here: one API response split over several assistant lines sharing `message.id`
 * (their blocks are joined in order), tool results arriving as `user` lines (attached to their
 * tool_use by id, not taken for prompts), compaction summaries (`isCompactSummary`, or the
 * "This session is being continued…" text) that open a `compaction` exchange, and a last line
 * still being written (left unread: only newline-terminated lines are consumed).
 */
import type { CompactionInfo, Exchange, LineStats, SessionMeta, ToolCall } from './types.js'
import { emptyLineStats } from './types.js'

export interface TranscriptIdentity {
  /** From the file name or folder; the lines' own sessionId wins when present. */
  sessionId: string
  agentId: string | null
  isSidechain: boolean
}

export interface ParseOutput {
  /** In transcript order; the last one is provisional. */
  exchanges: Exchange[]
  meta: SessionMeta
  stats: LineStats
  /** Byte offset just past the last complete line consumed. */
  endOffset: number
  /** Index of the line at endOffset. */
  endLine: number
}

/** Tool results beyond this are kept only as their beginning: they are evidence, not the index's text. */
export const RESULT_CHARS = 2000

const IGNORED_TYPES = new Set([
  'progress', 'file-history-snapshot', 'queue-operation', 'attachment', 'last-prompt', 'tag', 'agent-name',
])
const CONTINUATION = /^This session is being continued from a previous conversation/
const INTERRUPTION = /^\[Request interrupted by user/
/** Output of local slash commands (`/clear`, `/cost`): echoed into the transcript, not said by anyone. */
const LOCAL_OUTPUT = /^<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>/

/**
 * Parses the complete lines of `buf`, which starts at byte `startOffset` and line `startLine` of
 * the transcript, continuing a session whose metadata so far is `meta`.
 */
export function parseTranscript(buf: Buffer, startOffset: number, startLine: number, identity: TranscriptIdentity, meta: SessionMeta): ParseOutput {
  const parser = new ExchangeBuilder(identity, { ...meta, prLinks: [...meta.prLinks] })
  let at = 0
  let line = startLine
  while (at < buf.length) {
    const newline = buf.indexOf(10, at)
    if (newline < 0) {
      parser.stats.truncated++
      break
    }
    if (newline > at) parser.feed(buf.toString('utf8', at, newline), line, startOffset + at)
    at = newline + 1
    line++
  }
  const exchanges = parser.finish()
  return { exchanges, meta: parser.meta, stats: parser.stats, endOffset: startOffset + at, endLine: line }
}

type Json = Record<string, unknown>

class ExchangeBuilder {
  readonly stats = emptyLineStats()
  private readonly exchanges: Exchange[] = []
  private current: Exchange | null = null
  /** Reply parts of the current exchange by message id, so split responses join in order. */
  private replyParts: string[] = []
  private toolIndex = new Map<string, ToolCall>()
  private seenUuids = new Set<string>()
  /** A compact_boundary announces the compaction summary that follows; the exchange starts at the boundary. */
  private pendingCompaction: { info: CompactionInfo; line: number; offset: number } | null = null

  constructor(private readonly identity: TranscriptIdentity, readonly meta: SessionMeta) {}

  feed(text: string, line: number, offset: number): void {
    this.stats.lines++
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.stats.malformed++
      return
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.stats.malformed++
      return
    }
    const record = value as Json
    const type = typeof record.type === 'string' ? record.type : '(none)'
    const uuid = str(record.uuid)
    // Claude Code rewrites a few lines verbatim when a session is resumed; a line counts once.
    if (uuid && (type === 'user' || type === 'assistant')) {
      if (this.seenUuids.has(uuid)) return this.ignore(`${type}:duplicate`)
      this.seenUuids.add(uuid)
    }
    switch (type) {
      case 'user': return this.user(record, line, offset)
      case 'assistant': return this.assistant(record, line, offset)
      case 'system': return this.system(record, line, offset)
      case 'summary': return this.setTitle('summary', str(record.summary))
      case 'custom-title': return this.setTitle('customTitle', str(record.customTitle) || str(record.title))
      case 'ai-title': return this.setTitle('aiTitle', str(record.aiTitle) || str(record.title))
      case 'pr-link': {
        const url = str(record.prUrl)
        if (url && !this.meta.prLinks.includes(url)) this.meta.prLinks.push(url)
        return
      }
      default:
        if (IGNORED_TYPES.has(type)) return this.ignore(type)
        this.stats.unknown[type] = (this.stats.unknown[type] ?? 0) + 1
    }
  }

  finish(): Exchange[] {
    this.close()
    const last = this.exchanges.at(-1)
    if (last) last.provisional = true
    return this.exchanges
  }

  private ignore(type: string): void {
    this.stats.ignored[type] = (this.stats.ignored[type] ?? 0) + 1
  }

  private setTitle(field: 'summary' | 'customTitle' | 'aiTitle', value: string): void {
    if (!value) return
    this.meta[field] = value
    // A title the user chose beats the generated ones; a session summary is the last resort.
    this.meta.title = this.meta.customTitle || this.meta.aiTitle || this.meta.summary
  }

  private user(record: Json, line: number, offset: number): void {
    if (record.isMeta === true) return this.ignore('user:meta')
    const message = obj(record.message)
    const content = message.content
    const texts: string[] = []
    let results = 0
    if (typeof content === 'string') {
      texts.push(content)
    } else if (Array.isArray(content)) {
      for (const block of content as unknown[]) {
        const b = obj(block)
        if (b.type === 'text') texts.push(str(b.text))
        else if (b.type === 'image') texts.push('[image]')
        else if (b.type === 'tool_result') {
          results++
          this.toolResult(b, record, line)
        }
      }
    }
    const text = texts.join('\n').trim()
    if (!text) {
      if (results > 0 && this.current) this.touch(record, line)
      return
    }
    if (INTERRUPTION.test(text)) {
      if (this.current) this.touch(record, line)
      return this.ignore('user:interruption')
    }
    if (LOCAL_OUTPUT.test(text)) return this.ignore('user:local-command')
    const compacted = record.isCompactSummary === true || CONTINUATION.test(text)
    this.open(record, line, offset, compacted ? 'compaction' : 'prompt', compacted ? text : cleanCommandMarkup(text))
  }

  private assistant(record: Json, line: number, offset: number): void {
    const message = obj(record.message)
    // An assistant line before any prompt (a subagent's resumed tail, a damaged head) still belongs somewhere.
    if (!this.current) this.open(record, line, offset, 'prompt', '')
    const exchange = this.current!
    if (!exchange.model && typeof message.model === 'string' && message.model !== '<synthetic>') exchange.model = message.model
    const content = Array.isArray(message.content) ? (message.content as unknown[]) : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : []
    for (const block of content) {
      const b = obj(block)
      if (b.type === 'text') {
        const text = str(b.text).trim()
        if (text) this.replyParts.push(text)
      } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
        exchange.hasThinking = true
      } else if (b.type === 'tool_use') {
        const id = str(b.id)
        if (id && this.toolIndex.has(id)) continue
        const call: ToolCall = { id, name: str(b.name), input: b.input ?? {}, result: '', isError: false, timestamp: str(record.timestamp) }
        exchange.toolCalls.push(call)
        if (id) this.toolIndex.set(id, call)
      }
    }
    this.touch(record, line)
  }

  private system(record: Json, line: number, offset: number): void {
    const subtype = str(record.subtype)
    if (subtype === 'compact_boundary') {
      const metadata = obj(record.compactMetadata)
      this.pendingCompaction = {
        info: { trigger: str(metadata.trigger), preTokens: typeof metadata.preTokens === 'number' ? metadata.preTokens : null },
        line,
        offset,
      }
      return
    }
    this.ignore(subtype ? `system:${subtype}` : 'system')
  }

  private toolResult(block: Json, record: Json, line: number): void {
    const call = this.toolIndex.get(str(block.tool_use_id))
    if (!call) {
      this.stats.orphanResults++
      return
    }
    call.result = resultText(block.content)
    call.isError = block.is_error === true
    // Reads report the file they read even when the input named it relatively.
    const file = obj(obj(record.toolUseResult).file)
    if (typeof file.filePath === 'string' && call.input && typeof call.input === 'object' && !('file_path' in (call.input as Json))) {
      call.input = { ...(call.input as Json), file_path: file.filePath }
    }
    this.touch(record, line)
  }

  private open(record: Json, line: number, offset: number, kind: Exchange['kind'], prompt: string): void {
    this.close()
    const compaction = kind === 'compaction' ? this.pendingCompaction : null
    this.pendingCompaction = null
    const sessionId = str(record.sessionId) || this.identity.sessionId
    const agentId = str(record.agentId) || this.identity.agentId
    const startLine = compaction?.line ?? line
    const timestamp = str(record.timestamp)
    this.current = {
      id: `${sessionId}:${agentId ?? 'main'}:${startLine}`,
      sessionId,
      agentId: agentId || null,
      isSidechain: record.isSidechain === true || this.identity.isSidechain,
      kind,
      startLine,
      endLine: line,
      startOffset: compaction?.offset ?? offset,
      timestamp,
      endTimestamp: timestamp,
      cwd: str(record.cwd),
      branch: str(record.gitBranch),
      version: str(record.version),
      model: '',
      prompt,
      reply: '',
      hasThinking: false,
      toolCalls: [],
      mentions: [],
      compaction: compaction?.info ?? null,
      provisional: false,
    }
  }

  /** Extends the current exchange to this line. */
  private touch(record: Json, line: number): void {
    const exchange = this.current!
    exchange.endLine = line
    const timestamp = str(record.timestamp)
    if (timestamp) exchange.endTimestamp = timestamp
    if (!exchange.cwd) exchange.cwd = str(record.cwd)
    if (!exchange.branch) exchange.branch = str(record.gitBranch)
  }

  private close(): void {
    const exchange = this.current
    if (!exchange) return
    exchange.reply = this.replyParts.join('\n\n')
    this.exchanges.push(exchange)
    this.current = null
    this.replyParts = []
    this.toolIndex = new Map()
  }
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}
}

/** A tool result's content: a string or text/image blocks. */
function resultText(content: unknown): string {
  let text = ''
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    text = (content as unknown[]).map((block) => {
      const b = obj(block)
      return b.type === 'text' ? str(b.text) : b.type === 'image' ? '[image]' : ''
    }).join('\n')
  }
  return text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}…` : text
}

/**
 * Slash commands arrive as `<command-name>/review</command-name><command-args>src</command-args>`
 * (plus a command-message echo); what the user typed is the name and its arguments.
 */
function cleanCommandMarkup(text: string): string {
  if (!text.startsWith('<command-')) return text
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim() ?? ''
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? ''
  const cleaned = [name, args].filter(Boolean).join(' ')
  return cleaned || text
}
