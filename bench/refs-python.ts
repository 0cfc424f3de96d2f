/**
 * Issue 19's Python references benchmark. Four real packages of different layouts — flask, click
 * and werkzeug (src layout, from their public repositories at a pinned commit) and Debian's
 * python3-django (a flat package) — and, per package, symbols drawn by a fixed seed from Python's
 * `ast` (top-level functions, classes, methods; a third each), split by a hash of their names
 * into a tuning half and a held-out half that nothing is tuned on. Held-out samples get looked
 * into (the first half for click's precision, seed 1919's for flask's recall): each is then
 * reported as contaminated, and a blind sample drawn from the held-out side outside every sample
 * looked into, by a seed of its own, is what the targets are read on. Ground truth is pyright's
 * find-all-references (its language server, from the npm package, offline), cached on disk under
 * bench/.work/pyright-gold/ so reruns are fast. Answers compared at path:line: `refs`, GNU global
 * (Debian's, through its pygments parser: every occurrence of the name as a token) and ripgrep's
 * word match, over the files the index selected; `all` counts every reference, `code` leaves out
 * import lines, definition lines and lines without code (comments, strings). Also `def`'s recall
 * for the qualified names a file defines several times, against ast.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { QueryContext } from '../src/core/query/context.js'
import { findDefinitions } from '../src/core/query/def.js'
import { findReferences } from '../src/core/query/refs.js'
import { corpus, git, WORK } from './corpus.js'
import { indexedContext } from './defs-bench.js'
import { PyrightClient } from './pyright-client.js'
import { addToTally, emptyTally, globalRefs, tallyFigures, type Tally } from './ref-tally.js'

const SEED = 19
const PER_PACKAGE = 60
/**
 * A fresh held-out sample, drawn when the first held-out half had been looked into (click's
 * precision): symbols of the held-out side of the hash, outside the first sample, by another seed.
 * Its misses were then looked into for flask's recall: reported still, as contaminated.
 */
const FRESH_SEED = 1919
const FRESH_PER_PACKAGE = 40
/**
 * Earlier sessions ran the bench with `--symbols 300` and looked into the misses of both halves
 * of that larger first sample, so none of it may enter a blind sample. A later session (click's
 * blind recall) looked into `--symbols 600` of all four packages: a blind sample drawn after it
 * must leave out the first 600 (this one stays at 300, so that today's blind samples stay as drawn).
 */
const LOOKED_INTO = 300
/**
 * The blind sample, drawn when seed 1919's had been looked into (flask's recall): held-out side of
 * the hash, outside the first sample at LOOKED_INTO and seed 1919's, by its own seed; its misses
 * are never printed, and `--no-blind` leaves it unmeasured while rules are being tuned. At most
 * BLIND_PER_PACKAGE: flask, the smallest package, has only 22 such symbols left (click and django 50).
 */
const BLIND_SEED = 2611
const BLIND_PER_PACKAGE = 50
/**
 * werkzeug joined when click's blind recall (0.903) was being worked on, so that a later claim has
 * a package nobody has looked into: its blind sample, by a seed of its own, drawn before any rule
 * was measured on it. Only its aggregate figures are ever printed.
 */
const WERKZEUG_BLIND_SEED = 3169

interface Package {
  name: string
  layout: string
  /** The corpus repository, built on first use. */
  dir: () => string
  /** The seed the package's blind sample is drawn by. */
  blindSeed: number
}

/** A public repository at a pinned commit, from a local mirror when there is one (no network needed). */
function pinned(name: string, url: string, commit: string, mirror: string): () => string {
  return () => {
    const dir = join(WORK, name)
    if (existsSync(join(dir, '.git'))) return dir
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const source = existsSync(mirror) ? mirror : url
    const clone = join(WORK, `${name}.clone`)
    if (!existsSync(mirror)) execFileSync('git', ['clone', '-q', '--filter=blob:none', url, clone], { stdio: 'inherit' })
    const gitDir = existsSync(mirror) ? source : join(clone, '.git')
    execFileSync('sh', ['-c', 'git --git-dir="$0" archive "$1" | tar -x -C "$2"', gitDir, commit, dir])
    rmSync(clone, { recursive: true, force: true })
    git(dir, 'init', '-q', '-b', 'main')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', `corpus: ${url} at ${commit}`)
    return dir
  }
}

export const PACKAGES: Package[] = [
  { name: 'flask', layout: 'src layout (src/flask), helpers re-exported by __init__', dir: pinned('flask', 'https://github.com/pallets/flask', '2ac89889f4cc330eabd50f295dcef02828522c69', '/work/.mirror/pallets+flask/repo'), blindSeed: BLIND_SEED },
  { name: 'click', layout: 'src layout (src/click)', dir: pinned('click', 'https://github.com/pallets/click', '2c8cd3ac958a7eb316d67f2d316c27086c4c0369', '/work/.mirror/pallets+click/repo'), blindSeed: BLIND_SEED },
  { name: 'django', layout: "flat package (Debian python3-django's django/)", dir: () => corpus('django'), blindSeed: BLIND_SEED },
  { name: 'werkzeug', layout: 'src layout (src/werkzeug), typed, example apps beside it', dir: pinned('werkzeug', 'https://github.com/pallets/werkzeug', '1b00618e787f40dfb21eba29caf8f8be7c8e1d93', '/work/.mirror/pallets+werkzeug/repo'), blindSeed: WERKZEUG_BLIND_SEED },
]

interface PyDef {
  qualifiedName: string
  name: string
  kind: 'function' | 'class' | 'method'
  path: string
  line: number
  /** The first decorator's line (a definition may be reported from there). */
  first: number
  column: number
}

interface PyFacts {
  defs: PyDef[]
  /** Per file: lines holding a name outside strings and comments, lines of import statements, lines defining a class or function. */
  lines: Record<string, { code: number[]; imports: number[]; defs: number[] }>
}

/** Definitions, and which lines are code, imports and definitions, from Python's ast and tokenize. */
const FACTS_SCRIPT = `
import ast, io, json, sys, tokenize
root = sys.argv[1]
paths = json.load(sys.stdin)
out = {'defs': [], 'lines': {}}
def name_column(text, keyword, name):
    at = text.find(keyword + ' ' + name)
    return at + len(keyword) + 1 if at >= 0 else text.find(name)
for path in paths:
    try:
        source = open(root + '/' + path, encoding='utf-8').read()
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        continue
    text = source.split('\\n')
    code, imports, defs = set(), set(), set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME:
                code.add(tok.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update(range(node.lineno, node.end_lineno + 1))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.add(node.lineno)
    def visit(body, scope, in_class):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = scope + '.' + node.name if scope else node.name
                keyword = 'class' if isinstance(node, ast.ClassDef) else 'def'
                kind = 'class' if keyword == 'class' else ('method' if in_class else 'function')
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                out['defs'].append({'qualifiedName': q, 'name': node.name, 'kind': kind, 'path': path, 'line': node.lineno, 'first': first, 'column': name_column(text[node.lineno - 1], keyword, node.name)})
                if isinstance(node, ast.ClassDef):
                    visit(node.body, q, True)
    visit(tree.body, '', False)
    out['lines'][path] = {'code': sorted(code), 'imports': sorted(imports), 'defs': sorted(defs)}
json.dump(out, sys.stdout)
`

function pyFacts(dir: string, paths: string[]): PyFacts {
  return JSON.parse(execFileSync('python3', ['-c', FACTS_SCRIPT, dir], { input: JSON.stringify(paths), encoding: 'utf8', maxBuffer: 1 << 30 })) as PyFacts
}

/** mulberry32: a small seeded generator, so the sample is the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The held-out half: decided by a hash of the symbol alone, whatever else is sampled. */
export function heldOut(pkg: string, def: { path: string; qualifiedName: string }): boolean {
  return createHash('sha256').update(`${pkg}\0${def.path}\0${def.qualifiedName}`).digest()[0]! % 2 === 1
}

/**
 * A third each of top-level functions, classes and methods (dunder names left out: their uses are
 * implicit), from non-test files the index selected, drawn by the seed; each name once.
 */
function sample(defs: PyDef[], count: number, seed = SEED): PyDef[] {
  const next = random(seed)
  const out: PyDef[] = []
  const kinds: PyDef['kind'][] = ['function', 'class', 'method']
  const pools = kinds.map((kind) => {
    const pool = defs.filter((d) => d.kind === kind && !d.name.startsWith('__') && !/(^|\/)tests?(\/|_)|conftest/.test(d.path))
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1))
      ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
    }
    return pool
  })
  const seen = new Set<string>()
  for (let i = 0; out.length < count && pools.some((p) => i < p.length); i++) {
    for (const pool of pools) {
      const def = pool[i]
      if (!def || out.length >= count) continue
      const key = `${def.path}:${def.qualifiedName}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push(def)
    }
  }
  return out
}

/** The fresh held-out sample: held-out side of the hash, outside the first sample of PER_PACKAGE, drawn by FRESH_SEED. */
function freshSample(pkg: string, defs: PyDef[]): PyDef[] {
  const first = new Set(sample(defs, PER_PACKAGE).map((d) => `${d.path}:${d.qualifiedName}`))
  return sample(defs.filter((d) => heldOut(pkg, d) && !first.has(`${d.path}:${d.qualifiedName}`)), FRESH_PER_PACKAGE, FRESH_SEED)
}

/** The blind sample: held-out side of the hash, outside every sample looked into, drawn by the package's blind seed. */
function blindSample(pkg: Package, defs: PyDef[]): PyDef[] {
  const key = (d: PyDef): string => `${d.path}:${d.qualifiedName}`
  const seen = new Set([...sample(defs, LOOKED_INTO), ...freshSample(pkg.name, defs)].map(key))
  return sample(defs.filter((d) => heldOut(pkg.name, d) && !seen.has(key(d))), BLIND_PER_PACKAGE, pkg.blindSeed)
}

/** pyright's references of each case, read from the cache, the rest asked of one server and saved. */
async function gold(pkg: string, dir: string, cases: PyDef[]): Promise<Map<string, string[]>> {
  const head = git(dir, 'rev-parse', 'HEAD').trim()
  const cacheDir = join(WORK, 'pyright-gold')
  const file = join(cacheDir, `${pkg}-${head}-all-platforms.json`)
  const cached = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[]>) : {}
  const key = (c: PyDef): string => `${c.path}:${c.line}:${c.column}`
  const missing = cases.filter((c) => !cached[key(c)])
  if (missing.length > 0) {
    process.stderr.write(`pyright: ${missing.length} symbols of ${pkg}…\n`)
    const copy = pyrightCopy(dir)
    const client = await PyrightClient.start(copy)
    try {
      for (const c of missing) {
        const found = await client.references(join(copy, c.path), c.line - 1, c.column)
        cached[key(c)] = [...new Set(found.filter((l) => l.path.startsWith(`${copy}/`)).map((l) => `${relative(copy, l.path)}:${l.line + 1}`))]
      }
    } finally {
      await client.stop()
      rmSync(copy, { recursive: true, force: true })
    }
    mkdirSync(cacheDir, { recursive: true })
    writeFileSync(file, `${JSON.stringify(cached)}\n`)
  }
  return new Map(cases.map((c) => [key(c), cached[key(c)]!]))
}

/**
 * The corpus's tree in a scratch folder, with a pyrightconfig.json (which takes precedence over a
 * pyproject's [tool.pyright]) that includes every file: click's own configuration, for one,
 * includes only src/ and tests/typing, and references are looked for in included files only.
 * Every platform's code is analysed (`pythonPlatform` matching none of pyright's platforms): on
 * its default, the host's, pyright takes code for another platform for unreachable and reports no
 * reference in it — all of click's _winconsole.py (`assert sys.platform == "win32"`), whose uses
 * every tool then counted as wrong. The same truth for every tool and every half.
 */
function pyrightCopy(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'vlt-pyright-'))
  execFileSync('sh', ['-c', 'git -C "$0" archive HEAD | tar -x -C "$1"', dir, copy])
  const extraPaths = existsSync(join(copy, 'src')) ? ['src'] : []
  writeFileSync(join(copy, 'pyrightconfig.json'), JSON.stringify({ include: ['.'], extraPaths, typeCheckingMode: 'basic', pythonPlatform: 'All' }))
  return copy
}

function ripgrepOf(dir: string, name: string): Set<string> {
  const child = execFileSync('sh', ['-c', 'rg -n -w --no-heading --type py -- "$0" . || true', name], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 })
  const out = new Set<string>()
  for (const row of child.split('\n')) {
    const match = /^(?:\.\/)?(.+?):(\d+):/.exec(row)
    if (match) out.add(`${match[1]}:${match[2]}`)
  }
  return out
}

const TOOLS = ['vlt', 'vltWithAmbiguous', 'global', 'ripgrep'] as const
type Tool = (typeof TOOLS)[number]
type Half = 'tuning' | 'heldOut' | 'fresh' | 'blind'

interface Miss {
  symbol: string
  missed: string[]
  extra: string[]
}

/**
 * `def` on every qualified name a file defines more than once (property getter, setter and
 * deleter; typing.overload; if/else versions), from ast: how many of those definitions it lists.
 */
function multiplyDefined(qctx: QueryContext, defs: PyDef[]): { names: number; definitions: number; found: number; recall: number; misses: string[] } {
  const byName = new Map<string, PyDef[]>()
  for (const def of defs) byName.set(`${def.path}:${def.qualifiedName}`, [...(byName.get(`${def.path}:${def.qualifiedName}`) ?? []), def])
  let names = 0
  let expected = 0
  let found = 0
  const misses: string[] = []
  for (const [key, list] of byName) {
    if (list.length < 2) continue
    names++
    expected += list.length
    const got = findDefinitions(qctx, key, { limit: 1000 }).definitions
    for (const def of list) {
      if (got.some((g) => g.path === def.path && g.line >= def.first && g.line <= def.line)) found++
      else if (misses.length < 10) misses.push(`${key} @ ${def.line}`)
    }
  }
  return { names, definitions: expected, found, recall: Math.round((found / Math.max(1, expected)) * 10000) / 10000, misses }
}

export interface PythonOptions {
  packages?: string[]
  symbols?: number
  /** Leave the blind sample unmeasured (while rules are tuned: not even its figures are seen). */
  noBlind?: boolean
}

export async function runPython(options: PythonOptions = {}): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const pkg of PACKAGES.filter((p) => !options.packages || options.packages.includes(p.name))) {
    const dir = pkg.dir()
    const qctx = await indexedContext(dir)
    out[pkg.name] = await measure(pkg, dir, qctx, options.symbols ?? PER_PACKAGE, !options.noBlind)
  }
  return out
}

async function measure(pkg: Package, dir: string, qctx: QueryContext, count: number, withBlind: boolean): Promise<Record<string, unknown>> {
  const selected = [...qctx.files].filter(([, f]) => f.language === 'python').map(([path]) => path).sort()
  const inSelection = (key: string): boolean => qctx.files.has(key.slice(0, key.lastIndexOf(':')))
  const facts = pyFacts(dir, selected)
  const key = (d: PyDef): string => `${d.path}:${d.qualifiedName}`
  const fresh = freshSample(pkg.name, facts.defs)
  const freshKeys = new Set(fresh.map(key))
  const blind = blindSample(pkg, facts.defs)
  const blindKeys = new Set(blind.map(key))
  // A larger --symbols sample never reaches into the fresh or blind ones: the halves stay disjoint.
  const cases = [...sample(facts.defs, count).filter((d) => !freshKeys.has(key(d)) && !blindKeys.has(key(d))), ...fresh, ...(withBlind ? blind : [])]
  const truthOf = await gold(pkg.name, dir, [...cases, ...(withBlind ? [] : blind)])
  const lineSets = new Map(Object.entries(facts.lines).map(([path, l]) => [path, { code: new Set(l.code), imports: new Set(l.imports), defs: new Set(l.defs) }]))
  const isCode = (key: string): boolean => {
    const at = key.lastIndexOf(':')
    const sets = lineSets.get(key.slice(0, at))
    const line = Number(key.slice(at + 1))
    return !!sets && sets.code.has(line) && !sets.imports.has(line) && !sets.defs.has(line)
  }
  // Only the Python files: pygments' parser of some other file kinds stops gtags (django's).
  const list = join(WORK, `${pkg.name}.gtags-files`)
  writeFileSync(list, `${selected.join('\n')}\n`)
  execFileSync('gtags', ['--gtagslabel=pygments', '-f', list], { cwd: dir })
  rmSync(list)
  const tallies = {} as Record<Half, Record<'all' | 'code', Record<Tool, Tally>>>
  for (const half of ['tuning', 'heldOut', 'fresh', 'blind'] as Half[]) tallies[half] = { all: Object.fromEntries(TOOLS.map((t) => [t, emptyTally()])) as Record<Tool, Tally>, code: Object.fromEntries(TOOLS.map((t) => [t, emptyTally()])) as Record<Tool, Tally> }
  const worst: Record<Exclude<Half, 'blind'>, Miss[]> = { tuning: [], heldOut: [], fresh: [] }
  const halves = { tuning: 0, heldOut: 0, fresh: 0, blind: 0 }
  try {
    for (const c of cases) {
      const half: Half = blindKeys.has(key(c)) ? 'blind' : freshKeys.has(key(c)) ? 'fresh' : heldOut(pkg.name, c) ? 'heldOut' : 'tuning'
      halves[half]++
      const truth = new Set(truthOf.get(`${c.path}:${c.line}:${c.column}`)!.filter(inSelection))
      const result = findReferences(qctx, `${c.path}:${c.qualifiedName}`, { limit: 1_000_000 })
      const vlt = new Set(result.references.map((r) => `${r.path}:${r.line}`))
      const answers: Record<Tool, Set<string>> = {
        vlt,
        vltWithAmbiguous: new Set([...vlt, ...(result.ambiguous ?? []).map((r) => `${r.path}:${r.line}`)]),
        global: new Set([...globalRefs(dir, c.name, ['-x', '-rx', '-sx'])].filter(inSelection)),
        ripgrep: new Set([...ripgrepOf(dir, c.name)].filter(inSelection)),
      }
      const code = new Set([...truth].filter(isCode))
      for (const tool of TOOLS) {
        addToTally(tallies[half].all[tool], truth, answers[tool])
        addToTally(tallies[half].code[tool], code, new Set([...answers[tool]].filter(isCode)))
      }
      // The blind sample's misses are never shown: it is measured, never looked into.
      if (half !== 'blind') {
        const missed = [...code].filter((k) => !vlt.has(k))
        const extra = [...vlt].filter((k) => !truth.has(k))
        if (missed.length + extra.length > 0) worst[half].push({ symbol: key(c), missed: missed.slice(0, 6), extra: extra.slice(0, 6) })
      }
    }
  } finally {
    for (const file of ['GTAGS', 'GRTAGS', 'GPATH']) rmSync(join(dir, file), { force: true })
  }
  const worstOf = (misses: Miss[]): Miss[] => misses.sort((a, b) => b.missed.length + b.extra.length - a.missed.length - a.extra.length).slice(0, 15)
  const report = (half: Half): Record<string, unknown> => ({
    symbols: halves[half],
    code: Object.fromEntries(TOOLS.map((t) => [t, tallyFigures(tallies[half].code[t], 1)])),
    all: Object.fromEntries(TOOLS.map((t) => [t, tallyFigures(tallies[half].all[t], 1)])),
  })
  return {
    definitions: multiplyDefined(qctx, facts.defs),
    corpus: { layout: pkg.layout, files: selected.length, symbols: cases.length, kinds: Object.fromEntries(['function', 'class', 'method'].map((k) => [k, cases.filter((c) => c.kind === k).length])) },
    ...(withBlind ? { blind: report('blind') } : {}),
    fresh: report('fresh'),
    heldOut: report('heldOut'),
    tuning: report('tuning'),
    // The contaminated halves' misses too: they were looked into before this sample was drawn.
    worstTuning: worstOf(worst.tuning),
    worstHeldOut: worstOf(worst.heldOut),
    worstFresh: worstOf(worst.fresh),
  }
}
