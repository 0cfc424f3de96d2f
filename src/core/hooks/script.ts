/**
 * The text git-vlt puts into a hook: a block between marker lines, rendered from
 * templates/hooks/vlt-hook.sh. The markers make the block findable, replaceable and removable
 * byte for byte, whether it stands alone in a file of ours or sits inside someone else's script.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { INDEXER_ARGS, type Launcher } from '../queue/indexer.js'

export const HOOK_NAMES = ['post-commit', 'post-merge', 'post-checkout', 'post-rewrite'] as const
export type HookName = (typeof HOOK_NAMES)[number]

/**
 * How the block got into the file, recorded in its start marker:
 * - `installed`: the file is ours alone (it may call a moved-aside `<hook>.vlt-chained`);
 * - `inserted`: the block was put after the shebang of a shell hook that was already there.
 */
export type BlockKind = 'installed' | 'inserted'

/** Suffix of a hook moved aside so that ours can take its place and call it. */
export const CHAINED_SUFFIX = '.vlt-chained'

export interface BlockOptions {
  hook: HookName
  kind: BlockKind
  /** The CLI the hook starts (paths gone since: `git-vlt` on PATH instead); null: the hook only queues. */
  launcher: Launcher | null
  /** Call `<hook>.vlt-chained` after the block (installed files that replaced a hook). */
  chain: boolean
}

const TEMPLATE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'templates', 'hooks', 'vlt-hook.sh')
let template: string | undefined

/** Shebang of a hook file that is ours alone. */
export const OWN_SHEBANG = '#!/bin/sh\n'

export function startMarker(hook: HookName, kind: BlockKind): string {
  return `# >>> git-vlt ${hook} (${kind}) >>>\n`
}

function endMarker(hook: HookName): string {
  return `# <<< git-vlt ${hook} <<<\n`
}

/** The block as a byte string (latin1, one char per byte), the way hook files are read and compared. */
export function renderBlock(options: BlockOptions): string {
  template ??= readFileSync(TEMPLATE, 'utf8')
  const { hook, launcher } = options
  // Rename detection costs O(adds × deletes): worth it for a commit, not for a branch switch or a merge.
  const renames = hook === 'post-commit' || hook === 'post-rewrite' ? '-M --no-commit-id' : '--no-commit-id'
  const body = template
    .replaceAll('@HOOK@', hook)
    .replaceAll('@RENAMES@', renames)
    .replaceAll('@NODE@', shellQuote(launcher?.node ?? ''))
    .replaceAll('@CLI@', shellQuote(launcher?.cli ?? ''))
    .replaceAll('@ARGS@', INDEXER_ARGS.join(' '))
  // Exit status stays the moved-aside hook's: post-checkout's becomes `git checkout`'s own.
  const chain = options.chain
    ? `if [ -x "\${0%/*}/${hook}${CHAINED_SUFFIX}" ]; then "\${0%/*}/${hook}${CHAINED_SUFFIX}" "$@"; fi\n`
    : ''
  return Buffer.from(`${startMarker(hook, options.kind)}${body}${chain}${endMarker(hook)}`, 'utf8').toString('latin1')
}

export interface FoundBlock {
  kind: BlockKind
  start: number
  /** Offset just past the end marker's newline. */
  end: number
}

/** Our block in a hook's text, or undefined; an unterminated block counts as none (never cut blindly). */
export function findBlock(text: string, hook: HookName): FoundBlock | undefined {
  for (const kind of ['installed', 'inserted'] as const) {
    const marker = startMarker(hook, kind)
    const start = text.startsWith(marker) ? 0 : indexOfLine(text, marker)
    if (start < 0) continue
    const endAt = indexOfLine(text, endMarker(hook), start)
    if (endAt < 0) return undefined
    return { kind, start, end: endAt + endMarker(hook).length }
  }
  return undefined
}

function indexOfLine(text: string, line: string, from = 0): number {
  const at = text.indexOf(`\n${line}`, from)
  return at < 0 ? -1 : at + 1
}

/** Shells whose scripts can take our (POSIX sh) block inline, so the hook keeps its own $0. */
const SHELL_SHEBANG = /^#![ \t]*(?:\/usr\/bin\/env[ \t]+)?(?:\/[^\s]*\/)?(?:sh|bash|dash)(?:[ \t][^\n]*)?\n/

/** Where a block goes into an existing shell hook (just after its shebang), or undefined when it is not one. */
export function insertionPoint(text: string): number | undefined {
  const match = SHELL_SHEBANG.exec(text)
  return match ? match[0].length : undefined
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}
