/**
 * Which repository files an exchange touched or talked about, as paths relative to the root of
 * the worktree they are in. Tool inputs name files explicitly and count whenever they lie inside
 * the repository (the file may since have been deleted); shell commands and prose only hint, so a
 * path found there counts only if the repository has such a file or a tool of the same exchange
 * named it.
 */
import { isAbsolute, posix, resolve } from 'node:path'
import type { Exchange, FileMention, MentionKind } from './types.js'

export interface MentionContext {
  /** Worktree roots, absolute. */
  roots: readonly string[]
  /** Files of the repository, root-relative (`git ls-files`). */
  knownFiles: ReadonlySet<string>
}

const TOOL_KINDS: Record<string, MentionKind> = {
  Edit: 'edit', MultiEdit: 'edit', Write: 'edit', NotebookEdit: 'edit',
  Read: 'read', NotebookRead: 'read',
  Grep: 'search', Glob: 'search', LS: 'search',
}
const PATH_FIELDS = ['file_path', 'path', 'notebook_path'] as const

/**
 * Path-like words: at least one `/` or a file extension, optionally `@`-prefixed. The lookbehind
 * keeps URLs (`https://…/x.js`) and identifiers (`obj.method`) out as far as cheaply possible.
 */
const PATH_WORD = /(?<![\w/:.@-])@?((?:\.{1,2}\/|\/|~\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}|(?:\.{1,2}\/|\/)?(?:[\w.-]+\/)+[\w.-]+)/g

export function exchangeMentions(exchange: Exchange, context: MentionContext): FileMention[] {
  const mentions: FileMention[] = []
  const seen = new Set<string>()
  const add = (path: string | null, kind: MentionKind, tool: string): void => {
    if (path === null) return
    const key = `${path}\0${kind}\0${tool}`
    if (seen.has(key)) return
    seen.add(key)
    mentions.push({ path, kind, tool })
  }
  const toolPaths = new Set<string>()
  for (const call of exchange.toolCalls) {
    const input = call.input && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {}
    const kind = TOOL_KINDS[call.name] ?? 'read'
    for (const field of PATH_FIELDS) {
      const value = input[field]
      if (typeof value !== 'string' || !value) continue
      const path = repoPath(value, exchange.cwd, context.roots)
      if (path !== null) toolPaths.add(path)
      add(path, kind, call.name)
    }
    if (typeof input.command === 'string') {
      for (const path of hintedPaths(input.command, exchange.cwd, context, toolPaths)) add(path, 'command', call.name)
    }
  }
  for (const text of [exchange.prompt, exchange.reply]) {
    for (const path of hintedPaths(text, exchange.cwd, context, toolPaths)) add(path, 'prose', '')
  }
  return mentions
}

/** Paths in free text that the repository has (or a tool of this exchange named). */
function hintedPaths(text: string, cwd: string, context: MentionContext, toolPaths: ReadonlySet<string>): string[] {
  const found: string[] = []
  for (const match of text.matchAll(PATH_WORD)) {
    const word = match[1].replace(/[.,;:]+$/, '')
    const path = repoPath(word, cwd, context.roots)
    if (path !== null && (context.knownFiles.has(path) || toolPaths.has(path)) && !found.includes(path)) found.push(path)
  }
  return found
}

/**
 * `value` (absolute, or relative to the session's `cwd`) as a path relative to the worktree root
 * containing it; null outside every root. Windows separators are accepted.
 */
export function repoPath(value: string, cwd: string, roots: readonly string[]): string | null {
  const slashed = value.replace(/\\/g, '/')
  if (slashed.startsWith('~')) return null
  const absolute = isAbsolute(slashed) ? posix.normalize(slashed) : cwd ? resolve(cwd, slashed) : null
  if (absolute === null) return null
  let best: string | null = null
  let bestRoot = ''
  for (const root of roots) {
    // The longest containing root wins: a worktree may live inside the main one (e.g. .worktrees/x).
    if (root.length > bestRoot.length && absolute.startsWith(`${root}/`)) {
      best = absolute.slice(root.length + 1)
      bestRoot = root
    }
  }
  if (best === null || best === '' || best.startsWith('.git/') || best === '.git') return null
  return best.replace(/\/+$/, '')
}
