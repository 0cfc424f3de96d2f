/**
 * Where the user's own configuration lives. It holds what a repository's committed `vlt.toml` may
 * not decide (see trust.ts). Kept free of heavy imports: the daemon client reads it on every query.
 */
import { homedir } from 'node:os'
import { join, sep } from 'node:path'

/** Names the user config file itself, e.g. for one shell or a test. */
export const USER_CONFIG_ENV = 'GIT_VLT_CONFIG'

/**
 * git-vlt's configuration directory, as oclif finds it (its `theme.json` lives there too):
 * GIT_VLT_CONFIG_DIR, else `$XDG_CONFIG_HOME/git-vlt`, else `~/.config/git-vlt`
 * (`%LOCALAPPDATA%\git-vlt` on Windows).
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GIT_VLT_CONFIG_DIR) return env.GIT_VLT_CONFIG_DIR
  const home = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.config')
  return join(home, 'git-vlt')
}

/** The user config file: GIT_VLT_CONFIG when set (and not empty), else `config.toml` in configDir(). */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env[USER_CONFIG_ENV] || join(configDir(env), 'config.toml')
}

/** A path as messages show it: `~/…` under the home directory. */
export function displayPath(path: string): string {
  const home = homedir()
  return path.startsWith(home + sep) ? `~${path.slice(home.length)}` : path
}
