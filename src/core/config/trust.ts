/**
 * What a repository's committed `vlt.toml` may decide. A clone is untrusted input, so its file
 * describes the repository — what to index and when, how to search it, which of its own files are
 * notes — and nothing that reaches outside it. These are honoured only from the user's own config:
 *
 * - `[llm]` and `[embedding]`, every key: together they choose where retrieved code, notes, threads
 *   and agent transcripts are sent (provider, base_url), which environment variable's secret goes
 *   with them (api_key_env: any variable, AWS_SECRET_ACCESS_KEY included), what the user pays for
 *   (model, dimensions, batch_size, concurrency, timeouts), and which files a native runtime loads
 *   as a model (model_dir). No key of these tables describes the repository, so none is kept.
 * - `[cache]`, every key: where index records (derived from the code) are sent and read from, and
 *   which environment variable's secret goes with them.
 * - `[notes] folders` outside the repository: absolute, `~` or climbing out with `..`. Folders
 *   inside it stay (symbolic links leading out are refused when the notes are listed).
 * - `[lsp]`, every key: it starts language servers, programs of this machine, over the repository.
 * - `[scip] path` outside the repository, by the same rule as notes folders.
 *
 * A repository that sets them is not refused — many were written before this rule — the settings
 * are dropped with one warning each that says where they belong.
 */
import { staysInRepository } from '../notes/config.js'

/** Tables only the user's config may set. */
export const USER_ONLY_TABLES = ['llm', 'embedding', 'cache'] as const

export interface Confined {
  /** The repository's settings without those it may not decide. */
  raw: Record<string, unknown>
  warnings: string[]
}

/** `raw` is the parsed `vlt.toml`; `userFile` is the user config as messages show it. */
export function confineRepositoryConfig(raw: Record<string, unknown>, userFile: string): Confined {
  const kept: Record<string, unknown> = { ...raw }
  const warnings: string[] = []
  for (const table of USER_ONLY_TABLES) {
    if (!Object.hasOwn(kept, table)) continue
    const value = kept[table]
    delete kept[table]
    const keys = isTable(value) && Object.keys(value).length > 0 ? ` (${Object.keys(value).join(', ')})` : ''
    // A literal key is worse than misplaced: it is committed. Say so, though it is ignored either way.
    const leaked = isTable(value) && Object.hasOwn(value, 'api_key') ? `; and remove ${table}.api_key: a key in a committed file is public` : ''
    warnings.push(`vlt.toml: [${table}]${keys} ignored: a repository's file cannot choose where your code and API keys go; set it in your own config (${userFile})${leaked}`)
  }
  const notes = kept.notes
  if (isTable(notes) && Array.isArray(notes.folders) && notes.folders.every((folder) => typeof folder === 'string')) {
    const folders = notes.folders as string[]
    const outside = folders.filter((folder) => !staysInRepository(folder.trim()))
    if (outside.length > 0) {
      kept.notes = { ...notes, folders: folders.filter((folder) => !outside.includes(folder)) }
      warnings.push(`vlt.toml: notes.folders ${outside.map((folder) => JSON.stringify(folder)).join(', ')} ignored: folders outside the repository are read only from your own config (${userFile})`)
    }
  }
  if (Object.hasOwn(kept, 'lsp')) {
    delete kept.lsp
    warnings.push(`vlt.toml: [lsp] ignored: a repository's file cannot start language servers on your machine; set it in your own config (${userFile})`)
  }
  const scip = kept.scip
  if (isTable(scip) && typeof scip.path === 'string' && !staysInRepository(scip.path.trim())) {
    const { path, ...rest } = scip
    kept.scip = rest
    warnings.push(`vlt.toml: scip.path ${JSON.stringify(path)} ignored: a repository's file cannot name a SCIP index outside the repository; set it in your own config (${userFile})`)
  }
  return { raw: kept, warnings }
}

export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}
