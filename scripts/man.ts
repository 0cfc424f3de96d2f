/**
 * Man pages from the same oclif metadata and help renderer as `--help` (src/core/cli/help.ts), so
 * they cannot drift from it: `git-vlt.1` for `git vlt --help` (git runs `man git-vlt`), one page per
 * topic with every command in it (`git-vlt-coderag.1`), one per top-level command
 * (`git-vlt-oracle.1`). Written to `man/` at the package root; npm installs the pages package.json's
 * `man` lists (it ignores `directories.man` on a global install), so a page missing from that list
 * or listed but no longer generated fails the build. Run by `npm run build`, after the commands
 * are compiled.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { Config } from '@oclif/core'
import VltHelp, { INVOCATION } from '../src/core/cli/help.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const MAN_DIR = join(ROOT, 'man')
/** Wide enough for the help's tables, narrow enough for an 80-column terminal after man's indent. */
const WIDTH = 72

/** The help renderer with its output captured instead of printed. */
class CapturedHelp extends VltHelp {
  private lines: string[] = []

  protected override log(...args: string[]): void {
    this.lines.push(...args.join(' ').split('\n'))
  }

  /** The root help (no id), a topic's or a command's. */
  async text(id?: string): Promise<string[]> {
    this.lines = []
    const command = id === undefined ? undefined : this.config.findCommand(id)
    if (command) await this.showCommandHelp(command)
    else await this.showHelp(id === undefined ? [] : [id])
    return this.lines.map((line) => stripVTControlCharacters(line).trimEnd())
  }
}

/** roff for a line shown as is: backslashes escaped, no line read as a request. */
function literal(line: string): string {
  const escaped = line.replaceAll('\\', '\\e')
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped
}

/**
 * One help text as roff: each ALL-CAPS heading as a section (`level` SH or SS) with its body kept
 * line for line, as the terminal shows it. The summary before the first heading is the page's
 * NAME line already, except for a command inside a topic's page (`level` SS), where it leads.
 */
function roffHelp(lines: string[], level: 'SH' | 'SS'): string[] {
  const out: string[] = []
  let inBody = false
  let skipping = false
  for (const line of lines) {
    const heading = /^[A-Z][A-Z ]+$/.test(line) ? line : undefined
    if (heading) {
      if (inBody) out.push('.fi')
      // VERSION names the machine that built the page (platform, Node version): not the reader's.
      skipping = heading === 'VERSION'
      inBody = !skipping
      if (!skipping) out.push(`.${level} ${heading}`, '.nf')
    } else if (skipping) continue
    else if (inBody) out.push(literal(line))
    else if (level === 'SS' && line.trim() !== '') out.push(literal(line))
  }
  if (inBody) out.push('.fi')
  return out
}

function page(name: string, description: string, version: string, body: string[], seeAlso: string[]): string {
  const title = name.toUpperCase()
  const lines = [
    `.TH "${title}" "1" "" "git-vlt ${version}" "git-vlt manual"`,
    '.SH NAME',
    `${name} \\- ${literal(description.replace(/\.$/, ''))}`,
    ...body,
  ]
  if (seeAlso.length > 0) lines.push('.SH SEE ALSO', seeAlso.map((other) => `\\fB${other}\\fR(1)`).join(', '))
  return `${lines.join('\n')}\n`
}

const config = await Config.load(ROOT)
const help = new CapturedHelp(config, { maxWidth: WIDTH, stripAnsi: true })
// Ids are copied first: rendering a topic's help rewrites its commands' ids with the topic separator.
const ids = config.commands.filter((command) => !command.hidden).map((command) => command.id).sort()
const summaries = new Map(config.commands.map((command) => [command.id, command.summary ?? command.description ?? command.id]))
const rootCommands = ids.filter((id) => !id.includes(':'))
// oclif lists a top-level command as a topic of its own too: a topic here is one with commands under it.
const topics = config.topics.filter((topic) => !topic.name.includes(':') && !topic.hidden && ids.some((id) => id.startsWith(`${topic.name}:`)))
const pageName = (id: string) => `git-vlt-${id.replaceAll(':', '-')}`
const others = [...topics.map((topic) => topic.name), ...rootCommands].map(pageName).sort()

rmSync(MAN_DIR, { recursive: true, force: true })
mkdirSync(MAN_DIR)
const write = (name: string, text: string) => writeFileSync(join(MAN_DIR, `${name}.1`), text)

write('git-vlt', page('git-vlt', config.pjson.description ?? 'git-vlt', config.version, roffHelp(await help.text(), 'SH'), others))
for (const topic of topics) {
  const body = roffHelp(await help.text(topic.name), 'SH')
  for (const id of ids.filter((id) => id.startsWith(`${topic.name}:`))) {
    body.push(`.SH "${INVOCATION.toUpperCase()} ${id.replaceAll(':', ' ').toUpperCase()}"`, ...roffHelp(await help.text(id), 'SS'))
  }
  write(pageName(topic.name), page(pageName(topic.name), topic.description ?? topic.name, config.version, body, ['git-vlt']))
}
for (const id of rootCommands) {
  const body = roffHelp(await help.text(id), 'SH')
  write(pageName(id), page(pageName(id), summaries.get(id)!, config.version, body, ['git-vlt']))
}

const listed = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man?: string[] }).man ?? []
const generated = ['git-vlt', ...others].map((name) => `./man/${name}.1`).sort()
if (JSON.stringify([...listed].sort()) !== JSON.stringify(generated)) {
  console.error(`package.json "man" must list exactly the generated pages:\n${JSON.stringify(generated, null, 2)}`)
  process.exit(1)
}
