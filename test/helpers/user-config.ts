/**
 * The suite never reads the developer's own git-vlt configuration (~/.config/git-vlt/config.toml):
 * importing this module (.mocharc.json requires it before any test; cli.ts imports it too) points
 * XDG_CONFIG_HOME at an empty directory of its own and clears the variables that name a config
 * file or directory, for this process and every CLI it spawns. A test that needs a user config
 * writes one with `userConfigFile` and passes the env it returns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const EMPTY_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'vlt-config-home-'))
process.on('exit', () => rmSync(EMPTY_CONFIG_HOME, { recursive: true, force: true }))

/** Variables that would lead to a real user config, and their isolated values ('' = unset). */
export const ISOLATED_CONFIG_ENV: Record<string, string> = { XDG_CONFIG_HOME: EMPTY_CONFIG_HOME, GIT_VLT_CONFIG: '', GIT_VLT_CONFIG_DIR: '' }

process.env.XDG_CONFIG_HOME = EMPTY_CONFIG_HOME
delete process.env.GIT_VLT_CONFIG
delete process.env.GIT_VLT_CONFIG_DIR

export interface UserConfigFile {
  path: string
  /** `{ GIT_VLT_CONFIG: path }`: for a spawned CLI's env, or Object.assign(process.env, …) in process. */
  env: { GIT_VLT_CONFIG: string }
  cleanup(): void
}

/** A user config file with this TOML text, in a directory of its own. */
export function userConfigFile(text: string): UserConfigFile {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-user-config-'))
  const path = join(dir, 'config.toml')
  writeFileSync(path, text)
  return { path, env: { GIT_VLT_CONFIG: path }, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Runs `body` with GIT_VLT_CONFIG set in this process (for in-process tests), restoring it after. */
export async function withUserConfig<T>(text: string, body: () => Promise<T>): Promise<T> {
  const file = userConfigFile(text)
  process.env.GIT_VLT_CONFIG = file.path
  try {
    return await body()
  } finally {
    delete process.env.GIT_VLT_CONFIG
    file.cleanup()
  }
}
