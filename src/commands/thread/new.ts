import { Args, Flags } from '@oclif/core'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { openRepo } from '../../core/git/index.js'
import { createThread } from '../../core/threads/index.js'

export interface ThreadNewResult {
  name: string
  title: string
  created: string
  description: string
  /** Relative to the working tree root, ready for `git add`; absolute in a bare repository (inside its git dir, never committed). */
  path: string
}

export default class ThreadNew extends VltCommand {
  static override summary = 'Start a thread: a markdown file under .vlt/threads/ that is committed with the repository.'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> auth-redesign --description "Moving sessions to JWT"', description: 'Create .vlt/threads/auth-redesign.md.' },
    { command: '<%= config.bin %> <%= command.id %> auth-redesign --json', description: 'Print {name, title, created, description, path}.' },
  ]

  static override args = {
    name: Args.string({ description: 'Thread name: lowercase letters, digits and dashes.', required: true }),
  }

  static override flags = {
    title: Flags.string({ description: 'Title shown at the top of the file (default: the name).' }),
    description: Flags.string({ char: 'd', description: 'What the thread is about, written under the title.' }),
  }

  async run(): Promise<ThreadNewResult> {
    const { args, flags } = await this.parse(ThreadNew)
    const repo = await openRepo(this.workDir(flags))
    const thread = await createThread(repo.vltDir, { name: args.name, title: flags.title, description: flags.description })
    const path = repo.root === null ? thread.path : thread.path.slice(repo.root.length + 1)
    const push = `add entries with \`git vlt thread push ${thread.name} "..."\``
    // A bare repository keeps threads in its git dir (<gitDir>/vlt/threads), which no commit can hold.
    this.log(
      repo.root === null
        ? `Created ${path} — ${push}. In a bare repository threads stay here, in its git directory: there is no working tree to share them from.`
        : `Created ${path} — ${push} and commit it to share.`,
    )
    return { name: thread.name, title: thread.title, created: thread.created, description: thread.description, path }
  }
}
