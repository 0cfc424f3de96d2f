import { VltCommand } from '../../core/cli/vlt-command.js'
import { indexStatus, type StatusResult } from '../../core/index/index.js'
import { formatBytes, formatSkipped } from '../../core/cli/format.js'
import { scipStatus, type ScipStatus } from '../../core/scip/index.js'

type Status = StatusResult & { scip: ScipStatus | null }

export default class CoderagStatus extends VltCommand {
  static override summary = 'Show what is indexed and whether it is up to date with HEAD.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Human-readable summary.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description:
        'Print {indexed, treeHash, headTreeHash, stale, files, chunks, symbols, edges, languages, bm25Bytes, vectorBytes, graphBytes, deltaOf, repoMapTokens, lastIndexed, lastIncremental, skipped, submodules, overlay, queue, indexer, integrity: {complete, problems}, commits: {indexed, head, bytes, stale}, scip: {commit, indexer, documents, fresh, stale, importedAt} | null}.',
    },
  ]

  async run(): Promise<Status> {
    const { flags } = await this.parse(CoderagStatus)
    const warn = (message: string): void => this.note(message)
    const status: Status = await indexStatus(this.workDir(flags), warn).then(async (index) => ({ ...index, scip: await scipStatus(this.workDir(flags), warn) }))
    if (!status.indexed) {
      this.log(status.integrity.complete ? 'Not indexed yet: run `git vlt coderag init`.' : `The index is damaged: ${describeIntegrity(status)}.`)
      return status
    }
    const languages = Object.entries(status.languages).sort((a, b) => b[1] - a[1]).map(([language, n]) => `${language} ${n}`).join(', ')
    this.log(
      [
        `tree        ${status.treeHash!.slice(0, 12)}${status.stale ? `  (stale: HEAD is ${status.headTreeHash.slice(0, 12)}${status.overlay.files ? `, ${status.overlay.files} uncommitted change(s)` : ''} — run \`git vlt coderag sync\`)` : '  (up to date)'}`,
        `files       ${status.files}  (${languages})`,
        `chunks      ${status.chunks}`,
        `symbols     ${status.symbols}`,
        `edges       ${status.edges}`,
        `storage     bm25 ${formatBytes(status.bm25Bytes)}, graph ${formatBytes(status.graphBytes)}, vectors ${formatBytes(status.vectorBytes)}${status.deltaOf ? `  (a delta of ${status.deltaOf.slice(0, 12)}: its aggregates, patched with the changed files when loaded)` : ''}`,
        `commits     ${describeCommits(status)}`,
        `scip        ${describeScip(status.scip)}`,
        `indexed     ${status.lastIndexed ?? 'never'}${status.lastIncremental ? `, last incremental ${status.lastIncremental}` : ''}`,
        `queue       ${describeQueue(status)}`,
        `indexer     ${describeIndexer(status)}`,
        `integrity   ${status.integrity.complete ? 'complete' : `incomplete: ${describeIntegrity(status)}`}`,
      ].join('\n') + formatSkipped(status.skipped),
    )
    return status
  }
}

function describeCommits(status: StatusResult): string {
  const { commits } = status
  const what = `${commits.indexed} commit(s) of HEAD's history, ${formatBytes(commits.bytes)}`
  return commits.stale ? `${what}  (stale — run \`git vlt coderag sync\`)` : what
}

function describeScip(scip: ScipStatus | null): string {
  if (!scip) return 'none imported'
  const by = scip.indexer ? ` by ${scip.indexer}` : ''
  return `${scip.documents} document(s)${by} for commit ${scip.commit.slice(0, 12)}, imported ${scip.importedAt}: ${scip.fresh} fresh, ${scip.stale} stale (answered syntactically)`
}

function describeQueue(status: StatusResult): string {
  const queue = status.queue
  if (queue.batches === 0) return 'empty'
  const what = `${queue.files} file(s), ${queue.lines} line(s) since ${queue.oldestChange}`
  return queue.due ? `${what} — due (${queue.reason} threshold reached)` : `${what} — waits until ${queue.dueAt} or a threshold`
}

function describeIntegrity(status: StatusResult): string {
  return `${status.integrity.problems.join('; ')} — queries repair what they read, \`git vlt coderag verify\` repairs everything`
}

function describeIndexer(status: StatusResult): string {
  const indexer = status.indexer
  if (indexer.running) return `running (pid ${indexer.pid}, since ${indexer.startedAt})`
  if (indexer.lastResult === 'failed') return `last run FAILED at ${indexer.finishedAt}: ${indexer.lastError} (log: .vlt/logs/indexer.log)`
  if (indexer.lastResult === 'ok') return `idle, last run ok at ${indexer.finishedAt}`
  return 'never ran'
}
