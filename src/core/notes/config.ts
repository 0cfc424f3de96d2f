/**
 * Settings of the notes source: the `[notes]` table of `vlt.toml` and of the user's config (the
 * config loader merges the two; see src/core/config/trust.ts for what each may decide). This module
 * holds their defaults and validation, and the rule that keeps a repository's folders inside it.
 */
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import { globProblem } from '../files/globs.js'

export interface NotesConfig {
  /**
   * Extra folders of notes beyond the repository's tracked markdown, e.g. an Obsidian vault:
   * absolute, `~/`-relative or relative to the repository root. Read from disk, content-hashed.
   * Only the user's own config may name a folder outside the repository.
   */
  folders: string[]
  /** Gitignore-style globs a note's path (relative to its repository or folder) must match. */
  include: string[]
  /**
   * The globs for folders outside the repository: the user's own `include`. A repository's
   * `include` applies to its own files only, so it cannot turn a vault's other files into notes.
   */
  outsideInclude: string[]
}

export const DEFAULT_NOTES_CONFIG: Readonly<NotesConfig> = Object.freeze({
  folders: [],
  include: ['*.md', '*.markdown', '*.mdx'],
  outsideInclude: ['*.md', '*.markdown', '*.mdx'],
})

/**
 * Defaults for absent keys, a UsageError naming `<file>: notes.<key>` for a bad value. The settings
 * of one file (or of a caller) apply to every folder: `outsideInclude` is `include`.
 */
export function notesConfig(raw: Partial<Record<'folders' | 'include', unknown>> = {}, file = 'vlt.toml'): NotesConfig {
  const folders = raw.folders === undefined ? [...DEFAULT_NOTES_CONFIG.folders] : stringArray(raw.folders, 'notes.folders', file)
  for (const folder of folders) {
    if (folder.trim() === '' || folder.includes('\0')) throw new UsageError(`${file}: notes.folders holds an empty or invalid folder: ${JSON.stringify(folder)}`)
  }
  const include = raw.include === undefined ? [...DEFAULT_NOTES_CONFIG.include] : stringArray(raw.include, 'notes.include', file)
  for (const pattern of include) {
    const problem = globProblem(pattern)
    if (problem) throw new UsageError(`${file}: notes.include pattern ${JSON.stringify(pattern)} is invalid: ${problem}`)
  }
  return { folders: folders.map(normalizeSpec), include, outsideInclude: [...include] }
}

function stringArray(value: unknown, key: string, file: string): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[]
  throw new UsageError(`${file}: ${key} must be a list of strings, not ${JSON.stringify(value)}`)
}

/** `~/vault/` and `~/vault` name the same folder, and note paths must not carry a doubled '/'. */
function normalizeSpec(folder: string): string {
  const trimmed = folder.trim()
  return trimmed.length > 1 ? trimmed.replace(/\/+$/, '') : trimmed
}

/** The absolute directory a folder setting names; relative settings are relative to the repository root. */
export function resolveFolder(spec: string, repoRoot: string): string {
  if (spec === '~') return homedir()
  if (spec.startsWith('~/')) return join(homedir(), spec.slice(2))
  return isAbsolute(spec) ? resolve(spec) : resolve(repoRoot, spec)
}

/**
 * Whether a folder setting names a folder inside the repository whatever the machine: relative,
 * not `~`, and no `..` climbing above the root once the path is normalised (`docs/../notes` is
 * fine, `docs/../../x` is not). Both separators count, as Windows would read them. Symbolic links
 * are the listing's to check: they depend on the disk, not on the setting.
 */
export function staysInRepository(spec: string): boolean {
  if (spec === '~' || spec.startsWith('~/') || spec.startsWith('~\\') || isAbsolute(spec) || /^[A-Za-z]:/.test(spec) || spec.startsWith('\\')) return false
  let depth = 0
  for (const segment of spec.split(/[\\/]+/)) {
    if (segment === '..') depth--
    else if (segment !== '' && segment !== '.') depth++
    if (depth < 0) return false
  }
  return true
}
