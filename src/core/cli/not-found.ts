/**
 * A command that does not exist (`git vlt coderag serch`, `git vlt help nope`): one line in the
 * form every other usage error takes, the words as the user typed them, the nearest commands when
 * a typo is likely, exit 2 — instead of oclif's "›   Error: command coderag:serch not found".
 * Installed as oclif's command_not_found hook and used by `git vlt help`.
 */
import type { Hook, Interfaces } from '@oclif/core'
import { editDistance } from '../edit-distance.js'
import { reportFailure } from './plain-output.js'

/** Edits (insert, delete, substitute) within which a command counts as "did you mean". */
const NEAR = 2

export function unknownCommandMessage(config: Interfaces.Config, id: string): string {
  // With spaces between topic and command, oclif's id runs on into the arguments
  // (`coderag serch parser` arrives as coderag:serch:parser): the unknown command is the first word
  // after the topics the words name.
  const words = id.split(':').filter(Boolean)
  let topics = 0
  while (topics < words.length - 1 && config.findTopic(words.slice(0, topics + 1).join(':'))) topics++
  const command = words.slice(0, topics + 1).join(':')
  const see = topics > 0 ? `git vlt help ${words.slice(0, topics).join(' ')}` : 'git vlt help'
  const near = config.commandIDs
    .filter((candidate) => !config.findCommand(candidate)?.hidden)
    .map((candidate) => ({ candidate, distance: editDistance(candidate, command) }))
    .filter(({ distance }) => distance <= NEAR)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .map(({ candidate }) => `'git vlt ${candidate.replaceAll(':', ' ')}'`)
  const suggestion = near.length > 0 ? `; did you mean ${near.slice(0, 3).join(' or ')}?` : ''
  return `'${command.replaceAll(':', ' ')}' is not a git vlt command${suggestion} (see '${see}')`
}

const hook: Hook.CommandNotFound = async function ({ id, argv, config }) {
  reportFailure(unknownCommandMessage(config, id), 2, (argv ?? []).includes('--json'))
}
export default hook
