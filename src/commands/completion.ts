import { Args } from '@oclif/core'
import { completionScript, SHELLS, type Shell } from '../core/cli/completion.js'
import { VltCommand } from '../core/cli/vlt-command.js'

export default class Completion extends VltCommand {
  static override summary = 'Print the shell completion script for git vlt (bash, zsh or fish).'
  static override description = `Completes topics, commands, flags and flag values of \`git vlt …\` through git's own completion,
and of the git-vlt executable. Install it once; it is generated from this build, so print it again
after an upgrade that adds commands.`

  static override examples = [
    { command: 'mkdir -p ~/.local/share/bash-completion/completions && <%= config.bin %> <%= command.id %> bash > ~/.local/share/bash-completion/completions/git-vlt', description: 'bash (with the bash-completion package, which loads git\'s completion too).' },
    { command: 'mkdir -p ~/.zfunc && <%= config.bin %> <%= command.id %> zsh > ~/.zfunc/_git-vlt', description: 'zsh: with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc.' },
    { command: '<%= config.bin %> <%= command.id %> fish > ~/.config/fish/completions/git-vlt.fish', description: 'fish.' },
    { command: '<%= config.bin %> <%= command.id %> bash --json', description: 'Print {shell, script}.' },
  ]

  static override args = { shell: Args.string({ description: 'The shell.', options: [...SHELLS], required: true }) }

  async run(): Promise<{ shell: Shell; script: string }> {
    const { args } = await this.parse(Completion)
    const shell = args.shell as Shell
    const script = completionScript(shell, this.config.commands, this.config.version)
    if (!this.jsonEnabled()) process.stdout.write(script)
    return { shell, script }
  }
}
