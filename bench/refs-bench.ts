/**
 * Issue 3's references benchmark (the Python half, issue 19's, is refs-python.ts). On rxjs 7's TypeScript sources (from its npm package), ~200
 * exported symbols; ground truth is the TypeScript language service's findReferences (minus
 * definition sites, which `refs` does not list), compared at path:line: recall and precision of
 * `refs` and of GNU global in the same run (Debian's global parses TypeScript only through its
 * pygments plug-in, which records no TypeScript definitions, so its answer is `global -rx` joined
 * with `global -sx`: every occurrence of the name). Then warm and cold latency on Linux 10k.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { findReferences } from '../src/core/query/refs.js'
import { corpus, git, WORK } from './corpus.js'
import { coldCli, indexedContext, sampleNames, warmLatency } from './defs-bench.js'
import { addToTally, emptyTally, globalRefs, tallyFigures } from './ref-tally.js'
import { runPython } from './refs-python.js'

const SAMPLE = 200

/** rxjs's src/ from its npm package, committed on first use. */
export function rxjsCorpus(): string {
  const dir = join(WORK, 'rxjs')
  if (existsSync(join(dir, '.git'))) return dir
  const pack = mkdtempSync(join(tmpdir(), 'vlt-rxjs-'))
  execFileSync('npm', ['pack', 'rxjs@7.8.2', '--silent'], { cwd: pack, stdio: ['ignore', 'pipe', 'inherit'] })
  execFileSync('tar', ['-xzf', 'rxjs-7.8.2.tgz'], { cwd: pack })
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  cpSync(join(pack, 'package', 'src'), join(dir, 'src'), { recursive: true })
  rmSync(pack, { recursive: true, force: true })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'corpus: rxjs 7.8.2 src/ from npm')
  return dir
}

export function tsFiles(dir: string, root = dir): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === '.vlt' || entry.name === 'node_modules') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...tsFiles(path, root))
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out.sort()
}

export function languageService(files: string[]): ts.LanguageService {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Node10, strict: true, skipLibCheck: true, lib: ['lib.es2020.d.ts', 'lib.dom.d.ts'] }
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => files,
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => (existsSync(name) ? ts.ScriptSnapshot.fromString(readFileSync(name, 'utf8')) : undefined),
    getCurrentDirectory: () => '/',
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
  }
  return ts.createLanguageService(host, ts.createDocumentRegistry())
}

export interface Case {
  name: string
  path: string
  line: number
  position: number
}

/** Exported top-level functions, classes, interfaces, types, enums and consts, every k-th one. */
export function sampleCases(dir: string, files: string[], count = SAMPLE): Case[] {
  const all: Case[] = []
  for (const file of files) {
    if (file.endsWith('.d.ts')) continue
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2020, true)
    for (const statement of source.statements) {
      const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      if (!exported) continue
      const names: ts.Identifier[] = []
      if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) names.push(statement.name)
      if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name)
      for (const id of names) {
        const position = id.getStart()
        const path = relative(dir, file)
        if (!all.some((c) => c.name === id.text && c.path === path)) all.push({ name: id.text, path, line: source.getLineAndCharacterOfPosition(position).line + 1, position })
      }
    }
  }
  const step = Math.max(1, Math.floor(all.length / count))
  return all.filter((_, i) => i % step === 0).slice(0, count)
}

const isCommentLine = (text: string): boolean => /^\s*(\*|\/\/|\/\*)/.test(text)

/**
 * findReferences also reports `{@link Name}` in doc comments: `code` is the truth without
 * references on comment lines (compared with the answers on code lines), `all` with them.
 */
function truthOf(service: ts.LanguageService, dir: string, c: Case): { all: Set<string>; code: Set<string> } {
  const out = new Set<string>()
  const code = new Set<string>()
  for (const symbol of service.findReferences(join(dir, c.path), c.position) ?? []) {
    for (const ref of symbol.references) {
      if (ref.isDefinition) continue
      const program = service.getProgram()!
      const source = program.getSourceFile(ref.fileName)!
      if (!ref.fileName.startsWith(dir)) continue
      const { line } = source.getLineAndCharacterOfPosition(ref.textSpan.start)
      const key = `${relative(dir, ref.fileName)}:${line + 1}`
      out.add(key)
      if (!isCommentLine(source.text.split('\n')[line] ?? '')) code.add(key)
    }
  }
  return { all: out, code }
}

/** The answers on code lines, for the truth without comment lines. */
function onCode(dir: string, answer: Set<string>): Set<string> {
  const lines = new Map<string, string[]>()
  const out = new Set<string>()
  for (const key of answer) {
    const at = key.lastIndexOf(':')
    const path = key.slice(0, at)
    let text = lines.get(path)
    if (!text) lines.set(path, (text = readFileSync(join(dir, path), 'utf8').split('\n')))
    if (!isCommentLine(text[Number(key.slice(at + 1)) - 1] ?? '')) out.add(key)
  }
  return out
}

/**
 * Both languages in one run; `--python-only` / `--ts-only`, and while iterating `--packages
 * flask,click`, `--symbols N` (the Python sample per package) and `--no-blind` (the blind sample left
 * unmeasured while rules are tuned).
 */
export async function run(args: string[]): Promise<unknown> {
  const option = (flag: string): string | undefined => {
    const at = args.indexOf(flag)
    return at >= 0 ? args[at + 1] : undefined
  }
  const python = args.includes('--ts-only') ? undefined : await runPython({ packages: option('--packages')?.split(','), symbols: option('--symbols') ? Number(option('--symbols')) : undefined, noBlind: args.includes('--no-blind') })
  if (args.includes('--python-only')) return { python }
  return { ...(await runTypeScript(args)), python }
}

async function runTypeScript(args: string[]): Promise<Record<string, unknown>> {
  const dir = rxjsCorpus()
  const qctx = await indexedContext(dir)
  const files = tsFiles(dir)
  const service = languageService(files)
  const cases = sampleCases(dir, files)
  execFileSync('gtags', ['--gtagslabel=pygments'], { cwd: dir })

  const vlt = emptyTally()
  const vltCode = emptyTally()
  const globalCode = emptyTally()
  const vltWithAmbiguous = emptyTally()
  const global = emptyTally()
  const worst: Array<{ symbol: string; missed: string[]; extra: string[] }> = []
  for (const c of cases) {
    const { all: truth, code } = truthOf(service, dir, c)
    const result = findReferences(qctx, `${c.path}:${c.name}`, { limit: 1_000_000 })
    const answer = new Set(result.references.map((r) => `${r.path}:${r.line}`))
    const globalAnswer = globalRefs(dir, c.name, ['-rx', '-sx'])
    addToTally(vlt, truth, answer)
    addToTally(vltCode, code, onCode(dir, answer))
    addToTally(vltWithAmbiguous, truth, new Set([...answer, ...(result.ambiguous ?? []).map((r) => `${r.path}:${r.line}`)]))
    addToTally(global, truth, globalAnswer)
    addToTally(globalCode, code, onCode(dir, globalAnswer))
    const missed = [...code].filter((k) => !answer.has(k))
    const extra = [...answer].filter((k) => !truth.has(k))
    if (missed.length + extra.length > 0) worst.push({ symbol: `${c.path}:${c.name}`, missed: missed.slice(0, 5), extra: extra.slice(0, 5) })
  }
  worst.sort((a, b) => b.missed.length + b.extra.length - a.missed.length - a.extra.length)
  rmSync(join(dir, 'GTAGS'), { force: true })
  rmSync(join(dir, 'GRTAGS'), { force: true })
  rmSync(join(dir, 'GPATH'), { force: true })

  const out: Record<string, unknown> = {
    corpus: { name: 'rxjs 7.8.2 src/', files: qctx.files.size, symbols: cases.length },
    vlt: tallyFigures(vlt, 100),
    vltWithAmbiguous: tallyFigures(vltWithAmbiguous, 100),
    global: tallyFigures(global, 100),
    codeOnly: { vlt: tallyFigures(vltCode, 100), global: tallyFigures(globalCode, 100) },
    worst: worst.slice(0, 12),
  }
  if (!args.includes('--no-latency')) {
    const linuxDir = corpus('linux10k')
    const linux = await indexedContext(linuxDir)
    const names = sampleNames(linux, 200)
    out.linux10k = { warm: warmLatency(names, (name) => findReferences(linux, name)), coldCli: coldCli(linuxDir, 'refs', names.slice(0, 7)) }
  }
  return out
}
