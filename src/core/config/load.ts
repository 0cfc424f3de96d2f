import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { UsageError } from '../errors.js'
import { confineRepositoryConfig, isTable } from './trust.js'
import type { VltConfig } from './types.js'
import { displayPath, USER_CONFIG_ENV, userConfigPath } from './user.js'
import { rerankProblem, validateConfig } from './validate.js'
import { reportConfigWarning } from './warnings.js'

export const CONFIG_FILE = 'vlt.toml'

// Loaded on first use: most repositories have no vlt.toml, and every command reads the config.
const require = createRequire(import.meta.url)
let toml: typeof import('smol-toml') | undefined

/**
 * The configuration a command in the repository at `root` runs with: the user's config merged with
 * the repository's `vlt.toml` (see mergeConfigs), defaults otherwise. Settings the repository may
 * not decide are ignored and reported (warnings.ts); bad files throw a UsageError naming the file.
 */
export async function loadConfig(root: string, env: NodeJS.ProcessEnv = process.env): Promise<VltConfig> {
  const { config, warnings } = await readConfig(root, env)
  for (const warning of warnings) reportConfigWarning(warning)
  return config
}

export interface LoadedConfig {
  config: VltConfig
  /** Settings of `vlt.toml` that were ignored, one line each. */
  warnings: string[]
}

/** loadConfig without reporting the warnings. */
export async function readConfig(root: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const userFile = userConfigPath(env)
  const [user, repository] = await Promise.all([
    readSource(userFile, displayPath(userFile), env[USER_CONFIG_ENV] ? `${USER_CONFIG_ENV} names ${userFile}, which does not exist` : undefined),
    readSource(join(root, CONFIG_FILE), CONFIG_FILE),
  ])
  return mergeConfigs(user, repository, userFile)
}

/** The text of a config file; undefined when it does not exist, unless that is an error (`missing`). */
async function readSource(path: string, label: string, missing?: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`${label}: cannot be read (${(error as Error).message})`)
    if (missing !== undefined) throw new UsageError(missing)
    return undefined
  }
}

/**
 * The user's config (text of `userFile`) and the repository's `vlt.toml`, each validated on its
 * own, then merged:
 * - `[llm]`, `[embedding]` and notes folders outside the repository come from the user's file only
 *   (trust.ts); the repository's are ignored with a warning;
 * - any other key set in both files takes the repository's value (it describes the repository; a
 *   list replaces the user's, it is not joined), except `notes.folders`, which are joined;
 * - the user's `[notes] include` alone decides which files of folders outside the repository are
 *   notes;
 * - `search.rerank = "llm"` from the repository is ignored (with a warning) when the user's config
 *   has no language model, instead of failing every search.
 * A relative `embedding.model_dir` is relative to the user's config file.
 */
export function mergeConfigs(user: string | undefined, repository: string | undefined, userFile: string): LoadedConfig {
  const userLabel = displayPath(userFile)
  const userRaw = user === undefined ? {} : parseToml(user, userLabel)
  const userConfig = validateConfig(userRaw, userLabel)
  const userProblem = rerankProblem(userConfig, userLabel)
  if (userProblem) throw userProblem
  if (repository === undefined) return { config: withUserPaths(userConfig, userFile), warnings: [] }

  const confined = confineRepositoryConfig(parseToml(repository, CONFIG_FILE), userLabel)
  const repoConfig = validateConfig(confined.raw, CONFIG_FILE)
  const config = validateConfig(overlay(userRaw, confined.raw), CONFIG_FILE)
  config.notes.folders = [...new Set([...userConfig.notes.folders, ...repoConfig.notes.folders])]
  config.notes.outsideInclude = userConfig.notes.include
  const warnings = [...confined.warnings]
  if (rerankProblem(config, CONFIG_FILE)) {
    config.search.rerank = 'offline'
    warnings.push(`vlt.toml: search.rerank = "llm" ignored: no [llm] is configured in your own config (${userLabel})`)
  }
  return { config: withUserPaths(config, userFile), warnings }
}

/** Parses and validates the text of one config file (`file` names it in messages). */
export function parseConfig(source: string, file = CONFIG_FILE): VltConfig {
  const config = validateConfig(parseToml(source, file), file)
  const problem = rerankProblem(config, file)
  if (problem) throw problem
  return config
}

function parseToml(source: string, file: string): Record<string, unknown> {
  toml ??= require('smol-toml') as typeof import('smol-toml')
  try {
    return toml.parse(source)
  } catch (error) {
    if (!(error instanceof toml.TomlError)) throw error
    // smol-toml's message is "Invalid TOML document: <reason>" followed by a code excerpt.
    const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')
    throw new UsageError(`${file}: syntax error at line ${error.line}, column ${error.column}: ${reason}`)
  }
}

/** `top`'s keys over `base`'s, tables merged key by key, anything else (lists included) replaced. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(top)) {
    const under = merged[key]
    merged[key] = isTable(under) && isTable(value) ? overlay(under, value) : value
  }
  return merged
}

/** Paths in the user's config: `~/` is the home directory, relative is relative to the file. */
function withUserPaths(config: VltConfig, userFile: string): VltConfig {
  const modelDir = config.embedding.modelDir
  if (modelDir !== undefined) config.embedding.modelDir = modelDir === '~' || modelDir.startsWith('~/') ? join(homedir(), modelDir.slice(1)) : resolve(dirname(userFile), modelDir)
  return config
}
