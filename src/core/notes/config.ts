/**
 * Settings of the notes source. They belong in `vlt.toml` as a `[notes]` table (see the report
 * of the notes work: the config loader rejects unknown tables, so until it learns this one the
 * settings are passed in by callers); this module holds their defaults and validation so the
 * loader can call it unchanged.
 */
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import { globProblem } from '../files/globs.js'

export interface NotesConfig {
  /**
   * Extra folders of notes beyond the repository's tracked markdown, e.g. an Obsidian vault:
   * absolute, `~/`-relative or relative to the repository root. Read from disk, content-hashed.
   */
  folders: string[]
  /** Gitignore-style globs a note's path (relative to its repository or folder) must match. */
  include: string[]
}

export const DEFAULT_NOTES_CONFIG: Readonly<NotesConfig> = Object.freeze({
  folders: [],
  include: ['*.md', '*.markdown', '*.mdx'],
})

/** Defaults for absent keys, a UsageError naming `notes.<key>` for a bad value. */
export function notesConfig(raw: Partial<Record<keyof NotesConfig, unknown>> = {}): NotesConfig {
  const folders = raw.folders === undefined ? [...DEFAULT_NOTES_CONFIG.folders] : stringArray(raw.folders, 'notes.folders')
  for (const folder of folders) {
    if (folder.trim() === '' || folder.includes('\0')) throw new UsageError(`vlt.toml: notes.folders holds an empty or invalid folder: ${JSON.stringify(folder)}`)
  }
  const include = raw.include === undefined ? [...DEFAULT_NOTES_CONFIG.include] : stringArray(raw.include, 'notes.include')
  for (const pattern of include) {
    const problem = globProblem(pattern)
    if (problem) throw new UsageError(`vlt.toml: notes.include pattern ${JSON.stringify(pattern)} is invalid: ${problem}`)
  }
  return { folders: folders.map(normalizeSpec), include }
}

function stringArray(value: unknown, key: string): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[]
  throw new UsageError(`vlt.toml: ${key} must be a list of strings, not ${JSON.stringify(value)}`)
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
