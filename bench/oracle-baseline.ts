/**
 * SC-006's baseline ("60 % fewer tool calls than manual file reading"): a scripted agent with only
 * grep and read — no index, no language model, deterministic — asked the oracle bench's questions,
 * counting the tool calls and the tokens it reads until the gold evidence is in front of it (the
 * same gold as the oracle's recall: the definition line, a reference line, a gold commit, a window
 * of a gold file), or until its budget of BUDGET calls is spent.
 *
 * Its tools, each call one count, its output's tokens (countTokens, as the oracle's context is
 * counted) what it read:
 * - grep: `git grep -n` over the tracked files (a pattern, a word, or several words with -c);
 * - read: WINDOW lines of one file;
 * - log: `git log -S <name>` (one line per commit) — grep over the history, which a competent grep
 *   user reaches for on "when was X added" (without it no history question could be answered).
 *
 * Its strategy, a fair and competent grep user's:
 * - definition: grep the language's definition forms of the name (`def|class X`, `function X`,
 *   `X = function`, `.X = function`, `class X`, `const X =`); the definition line is seen in the
 *   output. When none matches, grep the name as a word and read a window around each hit in turn.
 * - references: grep the name as a word: each use is a line of the output.
 * - history: `git log -S` the name; when no gold commit is listed, grep its definition and
 *   `git log -L` its first lines.
 * - conceptual: the question's identifiers, then its longest words (at most KEYWORDS, stop words
 *   out), counted per file by one `git grep -c -i -w` each; the files holding the most of them
 *   (then the most hits) are read in that order, their first WINDOW lines each, until a gold file
 *   is read.
 */
import { execFileSync } from 'node:child_process'
import { countTokens } from '../src/core/repomap/index.js'
import type { Question } from './oracle-questions.js'

export const BUDGET = 20
export const WINDOW = 60
const KEYWORDS = 4

export interface BaselineRun {
  reached: boolean
  calls: number
  tokens: number
}

const STOP = new Set(
  'about above after again against allow also because been before being below between both could does doing down during each from further have having here into itself just more most once only other over same should some such than that their them then there these they this those through under until very were what when where which while will with would your instead directly returns return using used'.split(' '),
)

class Agent {
  calls = 0
  tokens = 0
  constructor(private readonly dir: string) {}

  get spent(): boolean {
    return this.calls >= BUDGET
  }

  /** One tool call: what it returns is `cut` of git's output (a read returns its window only). */
  private run(args: string[], cut: (out: string) => string = (out) => out): string {
    this.calls++
    let out = ''
    try {
      out = execFileSync('git', args, { cwd: this.dir, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] })
    } catch (error) {
      // git grep exits 1 when nothing matches: an empty answer, still a call.
      out = String((error as { stdout?: string }).stdout ?? '')
    }
    const returned = cut(out)
    this.tokens += countTokens(returned)
    return returned
  }

  /** `path:line:text` hits. */
  grep(args: string[]): Array<{ path: string; line: number }> {
    return this.run(['grep', '-n', '-I', ...args])
      .split('\n')
      .flatMap((row) => {
        const match = /^(.+?):(\d+):/.exec(row)
        return match ? [{ path: match[1]!, line: Number(match[2]) }] : []
      })
  }

  /** Hits per file. */
  count(word: string): Map<string, number> {
    const counts = new Map<string, number>()
    for (const row of this.run(['grep', '-c', '-I', '-i', '-w', '-F', '-e', word]).split('\n')) {
      const match = /^(.+):(\d+)$/.exec(row)
      if (match) counts.set(match[1]!, Number(match[2]))
    }
    return counts
  }

  /** WINDOW lines of `path` from `start`. */
  read(path: string, start: number): { start: number; end: number } {
    const end = start + WINDOW - 1
    this.run(['show', `HEAD:${path}`], (out) => out.split('\n').slice(start - 1, end).join('\n'))
    return { start, end }
  }

  /** Commits as `hash subject`. */
  log(args: string[]): string[] {
    return this.run(['log', '--format=%H %s', ...args])
      .split('\n')
      .filter(Boolean)
      .map((row) => row.slice(0, row.indexOf(' ') > 0 ? row.indexOf(' ') : row.length))
  }
}

/** The definition forms of `name` in Python and JavaScript, as extended expressions. */
function definitionPatterns(name: string): string[] {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return [`^\\s*(async\\s+)?def\\s+${n}\\b`, `^\\s*class\\s+${n}\\b`, `function\\s+${n}\\b`, `\\b${n}\\s*[:=]\\s*(async\\s+)?function\\b`, `\\b(const|let|var)\\s+${n}\\s*=`]
}

export function baselineAgent(dir: string, question: Question): BaselineRun {
  const agent = new Agent(dir)
  const done = (reached: boolean): BaselineRun => ({ reached, calls: agent.calls, tokens: agent.tokens })
  const isGold = (hit: { path: string; line: number }): boolean => (question.lines ?? []).some((gold) => gold.path === hit.path && gold.line === hit.line)
  const name = question.symbol
  if (question.kind === 'definition' && name) {
    if (agent.grep(['-E', ...definitionPatterns(name).flatMap((p) => ['-e', p])]).some(isGold)) return done(true)
    for (const hit of agent.grep(['-w', '-F', '-e', name])) {
      if (agent.spent) return done(false)
      const window = agent.read(hit.path, Math.max(1, hit.line - WINDOW / 2))
      if ((question.lines ?? []).some((gold) => gold.path === hit.path && gold.line >= window.start && gold.line <= window.end)) return done(true)
    }
    return done(false)
  }
  if (question.kind === 'references' && name) return done(agent.grep(['-w', '-F', '-e', name]).some(isGold))
  if (question.kind === 'history' && name) {
    const gold = new Set(question.commits ?? [])
    if (agent.log(['-S', name]).some((hash) => gold.has(hash))) return done(true)
    const definition = agent.grep(['-E', ...definitionPatterns(name).flatMap((p) => ['-e', p])])[0]
    if (!definition) return done(false)
    return done(agent.log(['--no-patch', '-L', `${definition.line},${definition.line + 5}:${definition.path}`]).some((hash) => gold.has(hash)))
  }
  // A request in words.
  const words = keywords(question.question)
  const held = new Map<string, { words: number; hits: number }>()
  for (const word of words) {
    for (const [path, hits] of agent.count(word)) {
      const file = held.get(path) ?? { words: 0, hits: 0 }
      held.set(path, { words: file.words + 1, hits: file.hits + hits })
    }
  }
  const ranked = [...held].sort((a, b) => b[1].words - a[1].words || b[1].hits - a[1].hits).map(([path]) => path)
  const goldFiles = new Set(question.files ?? [])
  for (const path of ranked) {
    if (agent.spent) return done(false)
    agent.read(path, 1)
    if (goldFiles.has(path)) return done(true)
  }
  return done(false)
}

/** The question's identifiers (snake_case, camelCase, dotted, backticked), then its longest other words. */
export function keywords(question: string): string[] {
  const words = question.match(/[A-Za-z_$][\w$]*/g) ?? []
  const identifiers = words.filter((word) => /_|[a-z][A-Z]/.test(word))
  const plain = words.filter((word) => !identifiers.includes(word) && word.length >= 4 && !STOP.has(word.toLowerCase()))
  const ordered = [...new Set([...identifiers, ...[...new Set(plain)].sort((a, b) => b.length - a.length)])]
  return ordered.slice(0, KEYWORDS)
}
