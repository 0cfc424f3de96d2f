import { Args, Command, loadHelpClass } from '@oclif/core'
import { unknownCommandMessage } from '../core/cli/not-found.js'
import { reportFailure } from '../core/cli/plain-output.js'

/** `git vlt help [COMMAND]`: what `--help` and `-h` print, for people who type help first. */
export default class HelpCommand extends Command {
  static override summary = 'Show help for git-vlt, a topic or a command.'
  static override examples = [
    { command: '<%= config.bin %> help', description: 'The topics and commands.' },
    { command: '<%= config.bin %> help coderag search', description: 'What `git vlt coderag search --help` prints.' },
  ]

  static override args = { command: Args.string({ description: 'A topic or command, e.g. coderag or coderag search.', required: false }) }
  static override strict = false

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand)
    const Help = await loadHelpClass(this.config)
    const help = new Help(this.config, this.config.pjson.oclif.helpOptions ?? this.config.pjson.helpOptions)
    // oclif's help passes over the word help when it looks for its subject: `help help` means this command.
    if (argv.length === 1 && argv[0] === 'help') return help.showCommandHelp(this.config.findCommand('help')!, [])
    const subject = (argv as string[]).filter((word) => !word.startsWith('-')).join(':')
    if (subject !== '' && !this.config.findCommand(subject) && !this.config.findTopic(subject)) return reportFailure(unknownCommandMessage(this.config, subject), 2, false)
    await help.showHelp(argv as string[])
  }
}
