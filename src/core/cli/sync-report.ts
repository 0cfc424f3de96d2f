import type { SyncResult } from '../index/index.js'
import { quotedName } from '../display/index.js'

/** What `coderag sync` prints in text mode, shared by the oclif command and the fast path. */
export function syncReport(result: SyncResult): string[] {
  const tree = result.treeHash.slice(0, 12)
  const what =
    result.mode === 'unchanged' ? `tree ${tree} already indexed`
    : result.mode === 'reused' ? `tree ${tree} was indexed before: reused`
    : `tree ${tree}: ${result.changed.length} changed path(s), ${result.mode}`
  const { commits } = result
  const history = commits.added + commits.dropped === 0 ? '' : `; commits: ${commits.added} added, ${commits.dropped} dropped, ${commits.indexed} indexed`
  return [
    `${what}; ${result.extracted.length} file(s) re-processed; ${result.overlay.files} uncommitted change(s) in the overlay${history} (${result.durationMs} ms)`,
    ...result.extracted.map((path) => `  ${quotedName(path)}`),
  ]
}
