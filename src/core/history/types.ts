/**
 * The agent-history model, read from Claude Code transcripts (see the notes on their format).
 * An exchange is one human prompt (or one compaction summary) with everything the assistant did
 * until the next prompt: its reply text, tool calls with their results, and the files involved.
 */

export interface ToolCall {
  /** `toolu_…`, the id tool results refer to. */
  id: string
  name: string
  /** The tool's input as the model sent it (JSON data). */
  input: unknown
  /** The result's text, shortened; '' while no result has arrived. */
  result: string
  isError: boolean
  timestamp: string
}

/** How an exchange involved a file: `edit`/`read`/`search` through a tool, a shell `command`, or `prose` (named in text, `@path`). */
export type MentionKind = 'edit' | 'read' | 'search' | 'command' | 'prose'

export interface FileMention {
  /** Relative to the repository (or worktree) root, `/`-separated. */
  path: string
  kind: MentionKind
  /** The tool that touched it; '' for prose. */
  tool: string
}

export interface CompactionInfo {
  trigger: string
  preTokens: number | null
}

export interface Exchange {
  /** `<sessionId>:<agentId or "main">:<first line index>` — stable across re-ingests. */
  id: string
  sessionId: string
  /** Subagent id for sidechain transcripts, null in the main transcript. */
  agentId: string | null
  isSidechain: boolean
  /** `prompt`: started by a human; `compaction`: started by the summary of a compacted session. */
  kind: 'prompt' | 'compaction'
  /** 0-based line indexes in the transcript, inclusive. */
  startLine: number
  endLine: number
  /** Byte offset of the first line: where a re-ingest resumes when this exchange is the provisional one. */
  startOffset: number
  timestamp: string
  endTimestamp: string
  cwd: string
  branch: string
  version: string
  model: string
  prompt: string
  /** The assistant's text blocks in order, message parts joined. */
  reply: string
  hasThinking: boolean
  toolCalls: ToolCall[]
  mentions: FileMention[]
  compaction: CompactionInfo | null
  /** The transcript's last exchange: the session may still be writing it. */
  provisional: boolean
}

/** What a transcript says about its session besides exchanges; carried between incremental reads. */
export interface SessionMeta {
  /** custom-title, ai-title or summary line, newest wins in that order of preference. */
  title: string
  customTitle: string
  aiTitle: string
  summary: string
  prLinks: string[]
}

export function emptySessionMeta(): SessionMeta {
  return { title: '', customTitle: '', aiTitle: '', summary: '', prLinks: [] }
}

/** Per-run counts of lines that produced no exchange content. */
export interface LineStats {
  lines: number
  /** Known line types that carry nothing to index (progress, file-history-snapshot, …), by type. */
  ignored: Record<string, number>
  /** Line types this build does not know, by type. */
  unknown: Record<string, number>
  /** Complete lines that are not JSON objects. */
  malformed: number
  /** A last line without its newline: left for the next ingest. */
  truncated: number
  /** Tool results whose tool_use was not found in the same exchange. */
  orphanResults: number
}

export function emptyLineStats(): LineStats {
  return { lines: 0, ignored: {}, unknown: {}, malformed: 0, truncated: 0, orphanResults: 0 }
}

export function addLineStats(into: LineStats, from: LineStats): void {
  into.lines += from.lines
  into.malformed += from.malformed
  into.truncated += from.truncated
  into.orphanResults += from.orphanResults
  for (const [type, n] of Object.entries(from.ignored)) into.ignored[type] = (into.ignored[type] ?? 0) + n
  for (const [type, n] of Object.entries(from.unknown)) into.unknown[type] = (into.unknown[type] ?? 0) + n
}
