import { Args, Flags } from '@oclif/core'
import { resolve } from 'node:path'
import { VltCommand } from '../../../core/cli/vlt-command.js'
import { openIndexContext } from '../../../core/index/index.js'
import { describeImport, importScip, type ScipImportResult } from '../../../core/scip/index.js'

export default class CoderagScipImport extends VltCommand {
  static override summary = 'Import a SCIP index, so that def and refs answer from it for the files it is fresh for.'
  static override description = `FILE is a SCIP index (protobuf) written by any SCIP indexer, e.g. scip-typescript or
scip-python (\`git vlt coderag scip build\` runs them). It is stored under .vlt/scip/ with the commit it
was built for (--commit, default HEAD). From then on, for every file whose content is still the one
that commit holds, \`coderag def\`, \`coderag refs\` and the MCP tools answer from the SCIP index and mark
results precision "scip" (definitions also carry the indexer's type as \`type\`); other files are
answered from git-vlt's own indexes (precision "syntactic").

An index.scip at the repository's root (or the file \`[scip] path\` names in vlt.toml) is imported by
the next query on its own whenever it changes; this command is for any other file. Importing
replaces the previous import. Documents whose paths lead outside the repository, or name no file
of the commit, are left out and counted.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> index.scip', description: 'Import an index built for HEAD.' },
    { command: '<%= config.bin %> <%= command.id %> /tmp/app.scip --commit v1.2.0', description: 'Import an index a CI job built for a tag.' },
    {
      command: '<%= config.bin %> <%= command.id %> index.scip --json',
      description: 'Print {path, commit, tool, documents, skippedDocuments, occurrences, symbols}.',
    },
  ]

  static override args = {
    file: Args.string({ description: 'the SCIP file', required: true }),
  }

  static override flags = {
    commit: Flags.string({ description: 'The commit the index was built for (a revision); default HEAD.' }),
  }

  async run(): Promise<ScipImportResult> {
    const { args, flags } = await this.parse(CoderagScipImport)
    const index = await openIndexContext(this.workDir(flags))
    const result = await importScip(index, resolve(args.file), { commit: flags.commit, warn: (message) => this.note(message) })
    this.log(describeImport(result))
    return result
  }
}
