/**
 * Issue 3's definitions benchmark. Accuracy on Debian python3-sympy against Python's own `ast`
 * (every class, function and method with its qualified name and line): top-1 accuracy for
 * qualified names defined once, recall for those defined several times, universal-ctags on the
 * same cases in the same run. Latency on the indexed Linux 10k corpus: warm in-process p50/p95
 * and cold CLI wall time (this module's latency helpers are shared with refs-bench).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openQueryContext, type QueryContext } from '../src/core/query/context.js'
import { findDefinitions } from '../src/core/query/def.js'
import { corpus, git, WORK } from './corpus.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')

export interface Latency {
  queries: number
  p50Ms: number
  p95Ms: number
}

export function percentiles(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100
  return { queries: samples.length, p50Ms: at(0.5), p95Ms: at(0.95) }
}

/** Every `step`-th distinct defined name of the corpus, deterministic. */
export function sampleNames(qctx: QueryContext, count: number): string[] {
  const table = qctx.aggregates.symbols
  const names = new Set<string>()
  for (const file of table.sortedFiles()) for (let d = file.def0; d < file.def0 + file.defs; d++) names.add(table.strings.get(file.cols.defName[d]))
  const all = [...names].sort()
  const step = Math.max(1, Math.floor(all.length / count))
  return all.filter((_, i) => i % step === 0).slice(0, count)
}

/**
 * The corpus's query context, indexed by the built CLI first: index workers are compiled
 * JavaScript, which an in-process tsx run cannot start.
 */
export async function indexedContext(dir: string): Promise<QueryContext> {
  const child = spawnSync('node', [CLI, 'coderag', 'sync', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '1', GIT_VLT_DAEMON: '0' } })
  if (child.status !== 0) throw new Error(`coderag sync failed in ${dir} (${child.status}): ${child.stderr}`)
  return openQueryContext(dir, { warn: (m) => process.stderr.write(`${m}\n`), noSync: true })
}

/** Warm: the first query of each kind pays for decoding; the samples are the queries after it. */
export function warmLatency(names: string[], query: (name: string) => unknown): Latency {
  query(names[0]!)
  const samples = names.map((name) => {
    const started = performance.now()
    query(name)
    return performance.now() - started
  })
  return percentiles(samples)
}

/** Median wall time of `runs` CLI invocations (`coderag <command> NAME --json`) in `dir`. */
export function coldCli(dir: string, command: string, names: string[]): { runs: number; medianMs: number; minMs: number } {
  const times = names.map((name) => {
    const started = performance.now()
    const child = spawnSync('node', [CLI, 'coderag', command, name, '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '1', GIT_VLT_DAEMON: '0' } })
    if (child.status !== 0) throw new Error(`coderag ${command} ${name} failed (${child.status}): ${child.stderr}`)
    return performance.now() - started
  })
  const sorted = [...times].sort((a, b) => a - b)
  return { runs: times.length, medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]!), minMs: Math.round(sorted[0]!) }
}

const SYMPY = '/usr/lib/python3/dist-packages/sympy'

/** The sympy corpus repository, copied and committed on first use. */
function sympyCorpus(): string {
  const dir = join(WORK, 'sympy')
  if (existsSync(join(dir, '.git'))) return dir
  if (!existsSync(SYMPY)) throw new Error(`missing ${SYMPY}: apt-get install -y python3-sympy`)
  mkdirSync(dir, { recursive: true })
  cpSync(SYMPY, join(dir, 'sympy'), { recursive: true, filter: (src) => !src.includes('__pycache__') })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', "corpus: Debian python3-sympy's sympy package")
  return dir
}

interface TruthDef {
  qualifiedName: string
  path: string
  /** The `def`/`class` line, and the first decorator's line (a definition may start at either). */
  line: number
  first: number
}

/** Classes, functions and methods (nested classes included, functions inside functions not), from `ast`. */
const AST_SCRIPT = `
import ast, json, os, sys
root = sys.argv[1]
out = []
def visit(body, scope, path):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            q = scope + '.' + node.name if scope else node.name
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            out.append({'qualifiedName': q, 'path': path, 'line': node.lineno, 'first': first})
            if isinstance(node, ast.ClassDef):
                visit(node.body, q, path)
for dirpath, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if d not in ('.git', '.vlt', '__pycache__'))
    for name in sorted(files):
        if not name.endswith('.py'):
            continue
        full = os.path.join(dirpath, name)
        try:
            tree = ast.parse(open(full, encoding='utf-8').read())
        except (SyntaxError, UnicodeDecodeError):
            continue
        visit(tree.body, '', os.path.relpath(full, root))
json.dump(out, sys.stdout)
`

function astTruth(dir: string): TruthDef[] {
  return JSON.parse(execFileSync('python3', ['-c', AST_SCRIPT, dir], { encoding: 'utf8', maxBuffer: 1 << 30 })) as TruthDef[]
}

/** universal-ctags' class/function/member tags by qualified name (`--extras=+q`), in its output order. */
function ctagsIndex(dir: string): Map<string, Array<{ path: string; line: number }>> {
  const out = execFileSync('ctags', ['-R', '--languages=Python', '--fields=+nK', '--extras=+q', '--exclude=.vlt', '--exclude=.git', '-f', '-', '.'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 })
  const index = new Map<string, Array<{ path: string; line: number }>>()
  for (const row of out.split('\n')) {
    const cols = row.split('\t')
    if (cols.length < 4 || row.startsWith('!_')) continue
    const kind = cols.find((c, i) => i >= 3 && /^(class|function|member)$/.test(c))
    const line = cols.find((c) => c.startsWith('line:'))
    if (!kind || !line) continue
    const list = index.get(cols[0]!) ?? []
    list.push({ path: cols[1]!.replace(/^\.\//, ''), line: Number(line.slice(5)) })
    index.set(cols[0]!, list)
  }
  return index
}

interface Accuracy {
  cases: number
  top1: number
  top1Accuracy: number
  recallCases: number
  definitionsExpected: number
  definitionsFound: number
  recall: number
  misses: string[]
}

function score(truth: TruthDef[], answer: (qualifiedName: string) => Array<{ path: string; line: number }>): Accuracy {
  const byName = new Map<string, TruthDef[]>()
  for (const def of truth) byName.set(def.qualifiedName, [...(byName.get(def.qualifiedName) ?? []), def])
  const hit = (def: TruthDef, got: { path: string; line: number }): boolean => got.path === def.path && got.line >= def.first && got.line <= def.line
  let cases = 0
  let top1 = 0
  let recallCases = 0
  let expected = 0
  let found = 0
  const misses: string[] = []
  for (const [name, defs] of byName) {
    const got = answer(name)
    if (defs.length === 1) {
      cases++
      if (got[0] && hit(defs[0]!, got[0])) top1++
      else if (misses.length < 15) misses.push(`${name} @ ${defs[0]!.path}:${defs[0]!.line} → ${got[0] ? `${got[0].path}:${got[0].line}` : 'nothing'}`)
    } else {
      recallCases++
      expected += defs.length
      found += defs.filter((def) => got.some((g) => hit(def, g))).length
    }
  }
  const ratio = (a: number, b: number): number => Math.round((a / Math.max(1, b)) * 10000) / 100
  return { cases, top1, top1Accuracy: ratio(top1, cases), recallCases, definitionsExpected: expected, definitionsFound: found, recall: ratio(found, expected), misses }
}

export async function run(args: string[]): Promise<unknown> {
  const dir = sympyCorpus()
  const started = performance.now()
  const qctx = await indexedContext(dir)
  const indexMs = Math.round(performance.now() - started)
  // Both tools answer over the files the index selected (vlt.toml's defaults leave tests out).
  const truth = astTruth(dir).filter((def) => qctx.files.has(def.path))
  const vlt = score(truth, (name) => findDefinitions(qctx, name, { limit: 1000 }).definitions)
  const tags = ctagsIndex(dir)
  const ctags = score(truth, (name) => (tags.get(name) ?? []).filter((tag) => qctx.files.has(tag.path)))

  const figures: Record<string, unknown> = { corpus: { name: 'sympy', files: qctx.files.size, definitions: truth.length, indexMs }, vlt, ctags }
  if (!args.includes('--no-latency')) {
    const linux = await indexedContext(corpus('linux10k'))
    const names = sampleNames(linux, 200)
    figures.linux10k = {
      warm: warmLatency(names, (name) => findDefinitions(linux, name)),
      coldCli: coldCli(corpus('linux10k'), 'def', names.slice(0, 7)),
    }
  }
  return figures
}
