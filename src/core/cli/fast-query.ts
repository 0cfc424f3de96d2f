/**
 * `git vlt coderag search|def|refs|map` answered without loading oclif, whose start-up (~70 ms
 * warm, half a CPU-second on a cold, loaded machine) is most of a served query's wall time and a
 * good part of a cold one's: by the repository's running daemon, else in process exactly as the
 * oclif command runs it (in-process-query.ts; just-in-time sync, notes, a daemon started for the
 * next query). Arguments are parsed from the command definitions in oclif.manifest.json (written
 * by the build from the command classes), the way oclif parses them; params and rendering are the
 * commands' own (query-cli.ts), and errors are reported as VltCommand reports them, so the output,
 * `--json` and exit code are the same. Anything this path is not sure to parse exactly as oclif
 * would (help, `--cwd`, `--`, an unknown flag, a value oclif might reject) goes to oclif, which
 * owns those error messages.
 */
import { existsSync, readFileSync } from 'node:fs'
import { EOL } from 'node:os'
import { join } from 'node:path'
import { configDir } from '../config/user.js'
import { onConfigWarning } from '../config/warnings.js'
import { askDaemon, type QueryOutcome } from '../daemon/client.js'
import type { DaemonLocation } from '../daemon/locate.js'
import { visibleLine, visibleText } from '../display/index.js'
import { takeFaultNotice, unwritableNotice } from '../store/fault.js'
import { jsonText, linesText, reportCommandError, reportFailure, withWarnings } from './plain-output.js'
import type { QueryName, QueryParams } from './queries.js'
import { QUERY_CLIS, type Rendering } from './query-cli.js'

/** A flag or argument of oclif.manifest.json; fields the parser below does not model are listed in UNMODELLED. */
interface ManifestFlag {
  name: string
  type: 'boolean' | 'option'
  char?: string
  default?: unknown
  multiple?: boolean
  options?: string[]
  [field: string]: unknown
}

interface ManifestArg {
  name: string
  required?: boolean
  options?: string[]
  [field: string]: unknown
}

export interface ManifestCommand {
  args: Record<string, ManifestArg>
  flags: Record<string, ManifestFlag>
  strict?: boolean
}

/** Flag fields that change how oclif parses: a command using any of them is left to oclif. */
const UNMODELLED = ['aliases', 'charAliases', 'allowNo', 'combinable', 'delimiter', 'dependsOn', 'deprecateAliases', 'deprecated', 'env', 'exclusive', 'hasDynamicHelp', 'noCacheDefault', 'relationships', 'required']
/** `--cwd` is a directory that oclif checks exists; that check is not in the manifest. */
const LEFT_TO_OCLIF = new Set(['cwd'])

export type Parsed = { args: Record<string, string>; flags: Record<string, string | number | boolean | (string | number)[]> }

/**
 * Parses `argv` (the command's arguments, after its id) as oclif would, or returns undefined when
 * oclif might parse it otherwise or reject it. Integer flags are those whose default is a number;
 * they must be positive (every one has `min: 1` — test/cli/fast-query.test.ts checks both against
 * the command classes).
 */
export function parseCommandLine(command: ManifestCommand, argv: readonly string[]): Parsed | undefined {
  if (command.strict === false) return undefined
  const flagDefs = Object.values(command.flags)
  if (flagDefs.some((flag) => UNMODELLED.some((field) => flag[field]))) return undefined
  const argNames = Object.keys(command.args)
  if (Object.values(command.args).some((arg) => arg.multiple || arg.default !== undefined)) return undefined

  const args: Record<string, string> = {}
  const flags: Parsed['flags'] = {}
  let positional = 0
  // oclif gives bare words after a repeatable option flag to that flag (until another option flag).
  let lastOption: ManifestFlag | undefined
  const take = (flag: ManifestFlag, input: string): boolean => {
    if (flag.options && !flag.options.includes(input)) return false
    const value = typeof flag.default === 'number' ? positiveInteger(input) : input
    if (value === undefined) return false
    if (flag.multiple) flags[flag.name] = [...((flags[flag.name] as (string | number)[] | undefined) ?? []), value]
    else if (flag.name in flags) return false
    else flags[flag.name] = value
    return true
  }
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token.startsWith('-') && token !== '-') {
      const equals = token.indexOf('=')
      const long = token.startsWith('--')
      const name = long ? token.slice(2, equals < 0 ? undefined : equals) : token.slice(1)
      const flag = long ? command.flags[name] : name.length === 1 ? flagDefs.find((def) => def.char === name) : undefined
      if (!flag || LEFT_TO_OCLIF.has(flag.name)) return undefined
      if (flag.type === 'boolean') {
        if (equals >= 0 || flag.name in flags) return undefined
        flags[flag.name] = true
        continue
      }
      const input = long && equals >= 0 ? token.slice(equals + 1) : argv[++i]
      if (input === undefined || input === '' || input.startsWith('-') || !take(flag, input)) return undefined
      lastOption = flag
    } else if (lastOption?.multiple) {
      if (!take(lastOption, token)) return undefined
    } else {
      const name = argNames[positional++]
      if (name === undefined) return undefined
      const options = command.args[name]!.options
      if (options && !options.includes(token)) return undefined
      args[name] = token
    }
  }
  if (argNames.some((name) => command.args[name]!.required && !(name in args))) return undefined
  for (const flag of flagDefs) if (!(flag.name in flags) && flag.default !== undefined) flags[flag.name] = flag.default as string | number
  return { args, flags }
}

function positiveInteger(input: string): number | undefined {
  if (!/^\d+$/.test(input)) return undefined
  const value = Number.parseInt(input, 10)
  return value >= 1 ? value : undefined
}

/**
 * Answers the query — from the daemon when one serves it, else in process — and returns true, or
 * returns false to leave it to oclif.
 */
export async function tryFastQuery(argv: readonly string[], located?: Promise<DaemonLocation>): Promise<boolean> {
  // fast-path.ts dispatches here for `coderag <query name> …` only.
  const name = argv[1] as QueryName
  if (!oclifPrintsPlainly()) return false
  const command = readManifest()?.commands[`coderag:${name}`]
  const parsed = command && parseCommandLine(command, argv.slice(2))
  if (!parsed) return false
  if (!(await argumentsFromStdin(command, parsed))) return false
  const cli = QUERY_CLIS[name]
  const params = cli.params(parsed.args as never, parsed.flags as never)
  const json = parsed.flags.json === true
  // Reading the config to find the daemon may warn about it: held until we know where they go.
  const configWarnings: string[] = []
  onConfigWarning((warning) => configWarnings.push(warning))
  const outcome = await askDaemon(process.cwd(), name, params, located)
  onConfigWarning(undefined)
  if (outcome.served) printServed(name, params, outcome.reply, json, configWarnings)
  else await answerHere(name, params, json, configWarnings, outcome.launch)
  return true
}

type Reply = Extract<QueryOutcome, { served: true }>['reply']

function printServed(name: QueryName, params: QueryParams[QueryName], reply: Reply, json: boolean, configWarnings: readonly string[]): void {
  const unplaced = json && reply.type === 'result' ? withWarnings(reply.result, configWarnings) : configWarnings
  for (const warning of unplaced) warnLine(warning)
  if (!json) for (const note of reply.notes) process.stderr.write(visibleText(`${note}\n`))
  if (reply.type === 'error') reportFailure(reply.message, reply.exitCode, json)
  else if (json) process.stdout.write(jsonText(reply.result))
  else printRendering(QUERY_CLIS[name].render(params as never, reply.result as never))
}

/**
 * The query in process, printed as the oclif command prints it (QueryCommand on VltCommand): in
 * text mode config warnings and notes as they come, the rendering, then the one line about writes
 * `.vlt/` refused; with `--json` the config warnings and that line join the result's `warnings`.
 * An error is reported as VltCommand reports it, after the warnings held for the result.
 */
async function answerHere(name: QueryName, params: QueryParams[QueryName], json: boolean, configWarnings: string[], launch: Launch | undefined): Promise<void> {
  const held = json ? configWarnings : []
  if (!json) for (const warning of configWarnings) warnLine(warning)
  onConfigWarning((warning) => (json ? held.push(warning) : warnLine(warning)))
  const note = (message: string): void => {
    if (!json) process.stderr.write(`${visibleText(message)}\n`)
  }
  try {
    // Loaded here: a query the daemon serves never needs them.
    const [{ answerInProcess }, { terminalProgress }] = await Promise.all([import('./in-process-query.js'), import('./progress.js')])
    const result = await answerInProcess(name, params, process.cwd(), { note, progress: json ? undefined : terminalProgress() })
    await launch?.(note)
    const skipped = takeFaultNotice()
    const notice = skipped ? [unwritableNotice(skipped)] : []
    if (json) {
      for (const warning of withWarnings(result, [...held, ...notice])) warnLine(warning)
      process.stdout.write(jsonText(result))
    } else {
      printRendering(QUERY_CLIS[name].render(params as never, result as never))
      for (const warning of notice) warnLine(warning)
    }
  } catch (error) {
    for (const warning of held) warnLine(warning)
    reportCommandError(`coderag ${name}`, error, true, json)
  } finally {
    onConfigWarning(undefined)
  }
}

type Launch = NonNullable<Extract<QueryOutcome, { served: false }>['launch']>

function printRendering(rendering: Rendering): void {
  process.stdout.write(linesText(rendering.stdout))
  process.stderr.write(linesText(rendering.stderr ?? []))
}

function warnLine(warning: string): void {
  process.stderr.write(`${visibleLine(`warning: ${warning}`)}\n`)
}

function readManifest(): { commands: Record<string, ManifestCommand> } | undefined {
  try {
    return JSON.parse(readFileSync(new URL('../../../oclif.manifest.json', import.meta.url), 'utf8')) as { commands: Record<string, ManifestCommand> }
  } catch {
    return undefined
  }
}

/**
 * oclif prints JSON through a colour theme when the user has one, and switches `--json` on from
 * GIT_VLT_CONTENT_TYPE: both are left to it.
 */
function oclifPrintsPlainly(): boolean {
  if (process.env.GIT_VLT_CONTENT_TYPE !== undefined) return false
  return !existsSync(join(configDir(), 'theme.json'))
}

/**
 * oclif reads an argument left out (here: map's SCOPE) from stdin when stdin is not a terminal,
 * waiting 10 ms at most for it. Done the same way, with the same cache, so that oclif finds the
 * text if the query falls back to it. False when the text is not a valid value (oclif says so).
 */
async function argumentsFromStdin(command: ManifestCommand, parsed: Parsed): Promise<boolean> {
  const missing = Object.keys(command.args).find((name) => !(name in parsed.args))
  if (missing === undefined || process.stdin.isTTY) return true
  const oclif = ((globalThis as { oclif?: { stdinCache?: string } }).oclif ??= {})
  if (!oclif.stdinCache) oclif.stdinCache = await readStdin()
  const value = oclif.stdinCache.trim()
  if (!value) return true
  const options = command.args[missing]!.options
  if (options && !options.includes(value)) return false
  parsed.args[missing] = value
  return true
}

async function readStdin(): Promise<string> {
  const { createInterface } = await import('node:readline')
  return new Promise((resolve) => {
    const lines: string[] = []
    const reader = createInterface({ input: process.stdin, terminal: false })
    const timeout = setTimeout(() => reader.close(), 10)
    reader.on('line', (line) => lines.push(line))
    reader.once('close', () => {
      clearTimeout(timeout)
      resolve(lines.join(EOL))
    })
  })
}
