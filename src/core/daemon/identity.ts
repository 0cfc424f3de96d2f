/**
 * What a daemon must share with a client to answer for it: the same build of git-vlt and the same
 * relevant environment. Both sides compute these the same way; a difference means `mismatch`.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { USER_CONFIG_ENV, userConfigPath } from '../config/user.js'
import { findEachInstalled } from '../executables/index.js'
import { SERVERS } from '../lsp/servers.js'
import { PROTOCOL_VERSION } from './protocol.js'

/**
 * This installation: protocol, package version, and when this module was written (a rebuild or
 * reinstall rewrites it; npm's fixed tarball mtimes are covered by the version).
 */
export const BUILD_ID: string = (() => {
  const here = fileURLToPath(import.meta.url)
  const pkg = JSON.parse(readFileSync(join(dirname(here), '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
  return `${PROTOCOL_VERSION}/${pkg.version}/${Math.trunc(statSync(here).mtimeMs)}`
})()

/**
 * The part of the environment an answer can depend on: git's variables (repository, index, config —
 * `git -c` travels as GIT_CONFIG_PARAMETERS), git-vlt's, where config lives, the API keys the
 * config names, the user's config file itself (`userConfig`: the digest of its text, when there
 * is one), and which language server each language would start (`def`/`refs --lsp`: found on PATH,
 * src/core/executables, from the repository's working tree `workDir`). A daemon keeps the
 * environment and user config it was started with, so a client whose fingerprint differs must not
 * be served by it. Variables that only say how the client was started or how to talk to a person
 * are left out, or the two ways of calling would keep replacing each other's daemon: `git vlt` sets
 * GIT_EXEC_PATH and puts git's exec path first on PATH, `git-vlt` does neither — hence the servers
 * PATH finds, not PATH itself (git's exec path holds none of them).
 */
export function envFingerprint(env: NodeJS.ProcessEnv, workDir: string, settings: Pick<RepoSettings, 'keyNames' | 'userConfig'>): string {
  const names = Object.keys(env)
    .filter((name) => ((name.startsWith('GIT_') || name.startsWith('VLT_')) && !IRRELEVANT.test(name)) || CONFIG_HOMES.includes(name) || settings.keyNames.includes(name))
    .sort()
  const hash = createHash('sha256')
  for (const name of names) hash.update(`${name}=${env[name]}\0`)
  if (settings.userConfig !== undefined) hash.update(`user config ${settings.userConfig}\0`)
  const servers = SERVERS.map((server) => server.command)
  findEachInstalled(servers, workDir, env.PATH).forEach((found, i) => hash.update(`${servers[i]} ${found ?? '-'}\0`))
  return hash.digest('hex').slice(0, 32)
}

const IRRELEVANT = /^GIT_(EXEC_PATH|PREFIX|TRACE.*|PAGER|EDITOR|SEQUENCE_EDITOR|ASKPASS|TERMINAL_PROMPT|SSH.*|AUTHOR_.*|COMMITTER_.*|REFLOG_ACTION|VLT_DAEMON.*)$/
const CONFIG_HOMES = ['HOME', 'XDG_CONFIG_HOME']

export interface RepoSettings {
  /** `[query] daemon` (true unless the config says otherwise). */
  daemon: boolean
  /** Environment variables the config names for API keys. */
  keyNames: string[]
  /** Digest of the user's config file, when there is one (its settings reach the daemon's answers). */
  userConfig?: string
}

/**
 * The settings of the config (the user's and vlt.toml, merged) the daemon depends on. The config
 * module (and its TOML parser) is only loaded when there is a config file, which keeps a served
 * query's start-up short: without one, this costs two stats. A config that does
 * not validate throws: the command then runs in process and reports it.
 */
export async function repoSettings(configRoot: string): Promise<RepoSettings> {
  const userText = readUserConfig()
  const { DEFAULT_CONFIG } = await import('../config/defaults.js')
  const configured = userText !== undefined || Boolean(process.env[USER_CONFIG_ENV]) || existsSync(join(configRoot, 'vlt.toml'))
  const config = configured ? await (await import('../config/load.js')).loadConfig(configRoot) : DEFAULT_CONFIG
  return {
    daemon: config.query.daemon,
    keyNames: [...new Set([config.embedding.apiKeyEnv, config.llm.apiKeyEnv])],
    ...(userText === undefined ? {} : { userConfig: createHash('sha256').update(userText).digest('hex') }),
  }
}

/** The user config's text; checked for first, as a failed read (a thrown error) costs more than a stat. */
function readUserConfig(): string | undefined {
  const path = userConfigPath()
  if (!existsSync(path)) return undefined
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
