import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { UsageError } from '../errors.js'
import type { VltConfig } from './types.js'
import { validateConfig } from './validate.js'

export const CONFIG_FILE = 'vlt.toml'

// Loaded on first use: most repositories have no vlt.toml, and every command reads the config.
const require = createRequire(import.meta.url)
let toml: typeof import('smol-toml') | undefined

/** Reads `<root>/vlt.toml` if there is one; defaults otherwise. Bad files throw a UsageError. */
export async function loadConfig(root: string): Promise<VltConfig> {
  let source: string
  try {
    source = await readFile(join(root, CONFIG_FILE), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return validateConfig({})
    throw new UsageError(`${CONFIG_FILE}: cannot be read (${(error as Error).message})`)
  }
  const config = parseConfig(source)
  // Relative to vlt.toml, which sits at the repository root, whatever directory the command runs in.
  if (config.embedding.modelDir !== undefined) config.embedding.modelDir = resolve(root, config.embedding.modelDir)
  return config
}

/** Parses and validates the text of a `vlt.toml`. */
export function parseConfig(source: string): VltConfig {
  toml ??= require('smol-toml') as typeof import('smol-toml')
  let raw: Record<string, unknown>
  try {
    raw = toml.parse(source)
  } catch (error) {
    if (!(error instanceof toml.TomlError)) throw error
    // smol-toml's message is "Invalid TOML document: <reason>" followed by a code excerpt.
    const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '')
    throw new UsageError(`${CONFIG_FILE}: syntax error at line ${error.line}, column ${error.column}: ${reason}`)
  }
  return validateConfig(raw)
}

