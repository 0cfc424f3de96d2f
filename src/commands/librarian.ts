import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../core/cli/vlt-command.js'
import { visibleText } from '../core/display/index.js'
import { DEFAULT_SHELF, runLibrarian, type LibrarianResult } from '../core/librarian/index.js'

export default class Librarian extends VltCommand {
  static override summary = 'Organise the notes and threads with a model: decision logs, index notes, moves, thread entries — left in the working tree for you to review.'
  static override description = `The Librarian is an agent with its own instructions (templates/prompts/librarian.md) and its own
tools: list, read and search notes and threads; write a note, move or rename a note, write an index
note, append an entry to a thread. It writes only markdown notes inside the notes folders of the
configuration that lie in the repository ([notes] folders; ${DEFAULT_SHELF}/ when none is set) and
entries of .vlt/threads/; any other path (outside those folders, through a symbolic link, with ..)
is refused. It overwrites a note only after reading it in the same run, never replaces a note by a
move, and redacts secret-looking strings from what it writes. Nothing is staged or committed: the
changes are listed after the answer, to review with git diff.

It needs a model: [llm] in your own config (~/.config/git-vlt/config.toml, or the file
GIT_VLT_CONFIG names); [llm.models] librarian gives it a model of its own, --model overrides both.
It stops after llm.max_turns requests, llm.agent_tokens tokens or llm.agent_timeout_ms and says so.
--json prints {answer, writes: [{action (create, update, move, append), path, bytes, from?,
redacted?}], toolCalls: [{id, name, arguments, result, status, durationMs}], usageByRole:
{librarian: {model, requests, inputTokens, outputTokens, costCents}}, stopped}.`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> "organise the oracle session threads of last week into a decision log"', description: 'Reads the week\'s oracle-session threads and writes notes/decision-log.md (or where it says).' },
    { command: '<%= config.bin %> <%= command.id %> "write an index note of notes/ grouped by topic"', description: 'An index note linking every note with a line about it.' },
    { command: '<%= config.bin %> <%= command.id %> "move the meeting notes into notes/meetings/" --model gpt-4o-mini', description: 'With another model than the configured one.' },
    { command: '<%= config.bin %> <%= command.id %> "record the retry decision in the thread auth-redesign" --json', description: 'Print {answer, writes, toolCalls, usageByRole, stopped}.' },
  ]

  static override args = {
    request: Args.string({ description: 'What to do, in plain words.', required: true }),
  }

  static override flags = {
    model: Flags.string({ description: 'The model (overrides [llm.models] librarian and llm.model of your config).' }),
  }

  async run(): Promise<LibrarianResult> {
    const { args, flags } = await this.parse(Librarian)
    const json = this.jsonEnabled()
    let streamed = false
    const result = await runLibrarian(this.workDir(flags), args.request, {
      model: flags.model,
      onProgress: json || !process.stderr.isTTY ? undefined : (line) => process.stderr.write(`${visibleText(line)}\n`),
      onText: json
        ? undefined
        : (delta) => {
            streamed = true
            process.stdout.write(visibleText(delta))
          },
      warn: (message) => this.note(message),
    })
    if (!json) {
      if (streamed) process.stdout.write('\n')
      else this.log(result.answer)
    }
    return result
  }
}
