import { Flags } from '@oclif/core'
import { terminalProgress } from '../../../core/cli/progress.js'
import { VltCommand } from '../../../core/cli/vlt-command.js'
import { openIndexContext } from '../../../core/index/index.js'
import { buildScip, describeImport, type ScipBuildResult } from '../../../core/scip/index.js'

export default class CoderagScipBuild extends VltCommand {
  static override summary = "Build a SCIP index of HEAD with the installed SCIP indexers of the repository's languages, and import it."
  static override description = `Runs scip-typescript (TypeScript, JavaScript) and scip-python (Python) in the repository for
the languages it holds, then imports their index as \`coderag scip import\` does (see there). Nothing
is installed: an indexer is used when you have it — on your PATH (entries inside the repository are
left out: a cloned repository's node_modules/.bin is never run unless you name a file with
--indexer), else the one installed with git-vlt. Languages without an indexer stay syntactic (one
warning); none at all is an error (exit 1).`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: "Index the repository's TypeScript and Python files and import the result." },
    { command: '<%= config.bin %> <%= command.id %> --output index.scip', description: 'Also keep the index (a CI job that publishes it).' },
    { command: '<%= config.bin %> <%= command.id %> --indexer ./node_modules/.bin/scip-typescript', description: 'Run this indexer (trusted by you) instead of looking for one.' },
    {
      command: '<%= config.bin %> <%= command.id %> --json',
      description: 'Print {path, commit, tool, documents, skippedDocuments, occurrences, symbols, indexers: [{name, executable}], uncovered}.',
    },
  ]

  static override flags = {
    indexer: Flags.string({ description: 'An indexer to run, by path (scip-typescript or scip-python, told by its file name); repeatable.', multiple: true }),
    output: Flags.string({ description: 'Also write the index to this file.' }),
  }

  async run(): Promise<ScipBuildResult> {
    const { flags } = await this.parse(CoderagScipBuild)
    const index = await openIndexContext(this.workDir(flags))
    const result = await buildScip(index, {
      indexers: flags.indexer,
      output: flags.output,
      progress: this.jsonEnabled() ? undefined : terminalProgress(),
      warn: (message) => this.note(message),
    })
    this.log(`${result.indexers.map((i) => i.name).join(' and ')}: ${describeImport(result)}`)
    return result
  }
}
