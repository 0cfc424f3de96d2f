import { strict as assert } from 'node:assert'
import { tmpdir } from 'node:os'
import { vlt } from '../helpers/cli.js'

describe('help', () => {
  it('-h, help and --help print usage and examples as git vlt …', () => {
    const root = vlt(tmpdir(), ['-h'])
    assert.equal(root.status, 0, root.stderr)
    assert.match(root.stdout, /USAGE\n {2}\$ git vlt \[COMMAND\]/)
    const topic = vlt(tmpdir(), ['help', 'coderag'])
    assert.equal(topic.status, 0, topic.stderr)
    assert.match(topic.stdout, /\$ git vlt coderag COMMAND/)
    const command = vlt(tmpdir(), ['coderag', 'search', '-h'])
    assert.equal(command.status, 0, command.stderr)
    assert.match(command.stdout, /USAGE\n {2}\$ git vlt coderag search QUERY/)
    assert.match(command.stdout, /EXAMPLES[\s\S]*\$ git vlt coderag search /)
    assert.doesNotMatch(command.stdout, /git-vlt coderag/)
  })

  it('help help is about the help command, and an unknown subject is a usage error', () => {
    const own = vlt(tmpdir(), ['help', 'help'])
    assert.equal(own.status, 0, own.stderr)
    assert.match(own.stdout, /\$ git vlt help \[COMMAND\.\.\.\]/)
    const unknown = vlt(tmpdir(), ['help', 'nope'])
    assert.equal(unknown.status, 2)
    assert.equal(unknown.stderr, "git vlt: 'nope' is not a git vlt command (see 'git vlt help')\n")
  })

  it('a mistyped command is one usage line in the words typed, with the nearest commands', () => {
    const typo = vlt(tmpdir(), ['coderag', 'serch', 'parser'])
    assert.equal(typo.status, 2)
    assert.equal(typo.stdout, '')
    assert.equal(typo.stderr, "git vlt: 'coderag serch' is not a git vlt command; did you mean 'git vlt coderag search'? (see 'git vlt help coderag')\n")
    const help = vlt(tmpdir(), ['help', 'hooks', 'instal'])
    assert.equal(help.status, 2)
    assert.match(help.stderr, /^git vlt: 'hooks instal' is not a git vlt command; did you mean 'git vlt hooks install'\?/)
    const json = vlt(tmpdir(), ['thread', 'lst', '--json'])
    assert.equal(json.status, 2)
    assert.deepEqual(JSON.parse(json.stdout), {
      error: { message: "'thread lst' is not a git vlt command; did you mean 'git vlt thread list'? (see 'git vlt help thread')", code: 'usage' },
    })
  })
})
