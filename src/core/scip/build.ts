/**
 * `coderag scip build`: runs the SCIP indexer of each of the repository's languages that the user
 * has installed, then imports what they wrote. Never installs one. Where an indexer is looked for:
 * the path the user passed (`--indexer`), else as src/core/executables finds the user's programs
 * (never in the repository: a cloned one can commit an executable named `scip-typescript`).
 */
import { spawn } from 'node:child_process'
import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { Progress } from '../cli/progress.js'
import { UsageError, VltError } from '../errors.js'
import { findInstalled, trustedPath } from '../executables/index.js'
import { listTree } from '../git/index.js'
import type { IndexContext } from '../index/context.js'
import { languageForPath } from '../parse/languages.js'
import type { LanguageId } from '../parse/types.js'
import { importScip, type ScipImportResult } from './import.js'

interface Indexer {
  name: string
  languages: readonly LanguageId[]
  /** Arguments that index the repository at `root` into `output`. */
  args(output: string, root: string): Promise<string[]>
}

const INDEXERS: readonly Indexer[] = [
  {
    name: 'scip-typescript',
    languages: ['typescript', 'tsx', 'javascript'],
    // Without a tsconfig.json it would index nothing: let it infer one (every TS/JS file).
    args: async (output, root) => ['index', '--no-progress-bar', '--output', output, ...((await exists(join(root, 'tsconfig.json'))) ? [] : ['--infer-tsconfig'])],
  },
  {
    name: 'scip-python',
    languages: ['python'],
    args: async (output, root) => ['index', '--output', output, '--project-name', basename(root)],
  },
]

export const INDEXER_NAMES = INDEXERS.map((i) => i.name)

export interface ScipBuildOptions {
  /** Indexers the user named by path; each is used for its name's languages. */
  indexers?: string[]
  /** Keep the index written here (e.g. `index.scip` for a CI job to publish), besides importing it. */
  output?: string
  progress?: Progress
  warn: (message: string) => void
}

export interface ScipBuildResult extends ScipImportResult {
  /** The indexers run, by name, with the executable used. */
  indexers: Array<{ name: string; executable: string }>
  /** The repository's languages no installed indexer covers. */
  uncovered: LanguageId[]
}

export async function buildScip(index: IndexContext, options: ScipBuildOptions): Promise<ScipBuildResult> {
  const root = index.repo.root
  if (root === null) throw new UsageError('a bare repository has no working tree to index: run it in a clone')
  const head = index.repo.head.commit
  if (!head) throw new UsageError('the repository has no commit yet: commit first, then build its SCIP index')
  const languages = new Set<LanguageId>()
  for (const entry of await listTree(index.repo, head)) {
    const language = languageForPath(entry.path)
    if (language) languages.add(language)
  }
  const explicit = explicitIndexers(options.indexers ?? [])
  const plan: Array<{ indexer: Indexer; executable: string }> = []
  const uncovered: LanguageId[] = []
  for (const indexer of INDEXERS) {
    const wanted = indexer.languages.filter((l) => languages.has(l))
    if (wanted.length === 0) continue
    const executable = explicit.get(indexer.name) ?? findInstalled(indexer.name, root)
    if (executable) plan.push({ indexer, executable })
    else uncovered.push(...wanted)
  }
  if (plan.length === 0) {
    const what = languages.size === 0 ? 'no language a SCIP indexer covers' : `no SCIP indexer installed for ${[...languages].join(', ')}`
    throw new VltError(`${what}: install @sourcegraph/scip-typescript or @sourcegraph/scip-python (npm install -g), or pass --indexer PATH`)
  }
  if (uncovered.length > 0) options.warn(`warning: no SCIP indexer installed for ${uncovered.join(', ')}: their files stay syntactic`)

  const dir = await fs.mkdtemp(join(tmpdir(), 'git-vlt-scip-'))
  try {
    options.progress?.start(plan.length, 'SCIP', 'indexers')
    const parts: Buffer[] = []
    for (const [i, { indexer, executable }] of plan.entries()) {
      const output = join(dir, `${i}.scip`)
      await run(executable, await indexer.args(output, root), root)
      // SCIP indexes concatenate: Index messages back to back read as one (repeated fields join).
      parts.push(await fs.readFile(output))
      options.progress?.tick()
    }
    options.progress?.stop()
    const combined = options.output ? resolve(options.output) : join(dir, 'index.scip')
    await fs.writeFile(combined, Buffer.concat(parts))
    const imported = await importScip(index, combined, { commit: head, warn: options.warn })
    return { ...imported, indexers: plan.map(({ indexer, executable }) => ({ name: indexer.name, executable })), uncovered }
  } finally {
    options.progress?.stop()
    await fs.rm(dir, { recursive: true, force: true })
  }
}

function explicitIndexers(paths: string[]): Map<string, string> {
  const byName = new Map<string, string>()
  for (const path of paths) {
    const name = basename(path).replace(/\.(c?js|cmd|exe)$/, '')
    if (!INDEXER_NAMES.includes(name)) throw new UsageError(`--indexer ${JSON.stringify(path)}: not one of ${INDEXER_NAMES.join(', ')} (named by its file name)`)
    byName.set(name, resolve(path))
  }
  return byName
}

async function exists(path: string): Promise<boolean> {
  return fs.access(path).then(
    () => true,
    () => false,
  )
}

/** Runs an indexer in the repository; a failure is one line: its last line of output that is not a stack frame. */
function run(executable: string, args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    // What the indexer runs itself (scip-python: python3, pip) is looked up where it was, never in the repository.
    const child = spawn(executable, args, { cwd, env: { ...process.env, PATH: trustedPath(cwd) }, stdio: ['ignore', 'pipe', 'pipe'] })
    let tail = ''
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-4_000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', (error) => fail(new VltError(`${basename(executable)} could not be started: ${error.message}`)))
    child.on('close', (code, signal) => {
      if (code === 0) return done()
      // A Node indexer that throws ends with its stack: the error's own line says more than a frame.
      const last = tail.trim().split('\n').filter((line) => !/^\s+at /.test(line)).at(-1)?.trim() ?? ''
      fail(new VltError(`${basename(executable)} failed (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`))
    })
  })
}
