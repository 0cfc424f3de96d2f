import { Args, Flags } from '@oclif/core'
import { text } from 'node:stream/consumers'
import { VltCommand } from '../../core/cli/vlt-command.js'
import { UsageError } from '../../core/errors.js'
import { openRepo } from '../../core/git/index.js'
import { appendEntry, defaultAuthor, ENTRY_TYPES, type Entry } from '../../core/threads/index.js'

export interface ThreadPushResult extends Entry {
  thread: string
}

export default class ThreadPush extends VltCommand {
  static override summary = 'Append an entry to a thread (no LLM call, no embedding: summaries are made when read).'
  static override examples = [
    { command: '<%= config.bin %> <%= command.id %> auth-redesign "Refresh tokens stay server-side." --type decision', description: 'Record a decision as the git user.' },
    { command: 'git log -1 --format=%B | <%= config.bin %> <%= command.id %> auth-redesign - --type research --author claude', description: 'Read the text from stdin.' },
    { command: '<%= config.bin %> <%= command.id %> auth-redesign "Try PASETO?" --json', description: 'Print {thread, id, timestamp, author, type, text}.' },
  ]

  static override args = {
    name: Args.string({ description: 'Thread name.', required: true }),
    text: Args.string({ description: 'Markdown text of the entry; `-` or nothing reads it from stdin.' }),
  }

  static override flags = {
    type: Flags.string({ char: 't', description: 'Kind of entry.', options: [...ENTRY_TYPES], default: 'thought' }),
    author: Flags.string({ char: 'a', description: 'user, claude, oracle, librarian, or a git user (default: git config user.name).' }),
  }

  async run(): Promise<ThreadPushResult> {
    const { args, flags } = await this.parse(ThreadPush)
    const repo = await openRepo(this.workDir(flags))
    const body = args.text === undefined || args.text === '-' ? await readStdin() : args.text
    const author = flags.author ?? (await defaultAuthor(repo))
    const entry = await appendEntry(repo.vltDir, args.name, { text: body, type: flags.type as Entry['type'], author })
    this.log(`Added ${entry.type} ${entry.id} to ${args.name}.`)
    return { thread: args.name, ...entry }
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('no entry text: pass it as an argument or pipe it on stdin')
  return text(process.stdin)
}
