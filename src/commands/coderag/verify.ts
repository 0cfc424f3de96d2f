import { terminalProgress } from '../../core/cli/progress.js'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { verifyIndex, type VerifyResult } from '../../core/index/index.js'
import { verifyScip } from '../../core/scip/index.js'

export default class CoderagVerify extends VltCommand {
  static override summary = "Check every record of HEAD's index and repair what is missing or damaged."
  static override description = `Reads every record the index of HEAD's tree depends on, decoding each: the index
state, the tree's manifest (and its anchor's), the BM25, symbol and graph aggregates, the overlay
of uncommitted changes, the blob record of every indexed and uncommitted file, the caches
beside the aggregates, the commit index of HEAD's history with every pack, and the imported SCIP index. What is missing or damaged is repaired: blob records are extracted again
from git (or the working file), manifests and aggregates rebuilt from them, a damaged cache
removed for its owner to rebuild on first use. Then everything is read again. A damaged SCIP
index is removed (it is not derived from git: queries answer syntactically until one is imported again).

Exits 0 when the index is whole after the repairs, 1 when something could not be repaired (the
report says what). Queries, sync and init repair what they meet on their own; verify is for a
restored CI cache, a disk that misbehaved, or to be sure.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Check and repair; print what was found.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description: 'Print {treeHash, checked: {blobRecords, records}, problems: [{path, problem, repaired}], whole, durationMs}.',
    },
  ]

  async run(): Promise<VerifyResult> {
    const { flags } = await this.parse(CoderagVerify)
    const result = await verifyIndex(this.workDir(flags), {
      progress: this.jsonEnabled() ? undefined : terminalProgress(),
      warn: (message) => this.note(message),
    })
    const scip = await verifyScip(this.workDir(flags))
    result.checked.records += scip.records
    result.problems.push(...scip.problems)
    const { blobRecords, records } = result.checked
    const checked = `${blobRecords} blob records and ${records} other records of tree ${result.treeHash.slice(0, 12)}`
    if (result.problems.length === 0) this.log(`Checked ${checked}: whole (${result.durationMs} ms).`)
    else {
      this.log(`Checked ${checked}: ${result.problems.length} problem(s).`)
      for (const { path, problem, repaired } of result.problems) this.log(`  ${repaired ? 'repaired' : 'NOT REPAIRED'}  ${path}: ${problem}`)
      this.log(result.whole ? `Whole again (${result.durationMs} ms).` : 'The index is still incomplete: queries answer from what is there.')
    }
    if (!result.whole) process.exitCode = 1
    return result
  }
}
