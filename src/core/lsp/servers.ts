/**
 * The language servers enrichment knows, by language. Each is run only when found where
 * src/core/executables looks (the user's PATH, never the repository's), and with settings that keep
 * the repository's own code from running inside it: typescript-language-server is pointed at
 * git-vlt's own tsserver (not the repository's node_modules/typescript), rust-analyzer runs no
 * build scripts or procedural macros, clangd reads no `.clangd` (a committed one could point it at
 * a remote index server or an index file outside the repository) and writes no background index
 * (it would put `.cache/clangd/` in the user's working tree); it runs no compiler either, as no
 * `--query-driver` is given; gopls's `go` downloads and runs nothing (see its env).
 */
import { createRequire } from 'node:module'
import type { LanguageId } from '../parse/types.js'

export interface ServerSpec {
  command: string
  args: string[]
  languages: readonly LanguageId[]
  initializationOptions?: () => unknown
  /** Set over the user's environment for this server. */
  env?: Readonly<Record<string, string>>
}

export const SERVERS: readonly ServerSpec[] = [
  { command: 'typescript-language-server', args: ['--stdio'], languages: ['typescript', 'tsx', 'javascript'], initializationOptions: ownTsserver },
  { command: 'pyright-langserver', args: ['--stdio'], languages: ['python'] },
  {
    command: 'gopls',
    args: [],
    languages: ['go'],
    // gopls runs `go list`: a go.mod's `toolchain` line would make go ≥ 1.21 download and run that
    // toolchain, its requirements would be fetched (by git, hg… from any host when direct), and cgo
    // runs the C compiler and pkg-config with flags from the repository's files.
    env: { GOTOOLCHAIN: 'local', GOPROXY: 'off', CGO_ENABLED: '0' },
  },
  {
    command: 'rust-analyzer',
    args: [],
    languages: ['rust'],
    initializationOptions: () => ({ cargo: { buildScripts: { enable: false } }, procMacro: { enable: false } }),
  },
  { command: 'clangd', args: ['--enable-config=false', '--background-index=false'], languages: ['c', 'cpp'] },
]

/** LSP's languageId for a document of ours. */
export const LSP_LANGUAGE: Partial<Record<LanguageId, string>> = {
  typescript: 'typescript',
  tsx: 'typescriptreact',
  javascript: 'javascript',
  python: 'python',
  go: 'go',
  rust: 'rust',
  c: 'c',
  cpp: 'cpp',
}

export function serverFor(language: LanguageId): ServerSpec | undefined {
  return SERVERS.find((server) => server.languages.includes(language))
}

function ownTsserver(): unknown {
  try {
    return { tsserver: { path: createRequire(import.meta.url).resolve('typescript/lib/tsserver.js') } }
  } catch {
    // Not installed beside git-vlt: the server's own choice (its bundled or global TypeScript).
    return {}
  }
}
