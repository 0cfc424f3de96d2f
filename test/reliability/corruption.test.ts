/**
 * Every kind of record under `.vlt/` × every way a file gets damaged, on a real repository indexed
 * with the built CLI: the command a user runs next answers exactly as on the undamaged index, says
 * so in at most one warning line, exits 0, and `coderag verify` finds the index whole afterwards.
 *
 * The index is built once (a pack, a delta tree with a loose record, an overlay of uncommitted
 * edits, notes and the caches queries leave behind); each case restores a copy of it, damages one
 * file and runs one command, in turn one of search, def, refs, map, oracle, status and sync, so that
 * each record kind meets several of them, a round in text (its warnings counted) and a round in
 * JSON. After status and sync, which answer no question, a query in JSON shows the index they left
 * answers as the undamaged one; `verify` completes every case. Cases run side by side, each in a
 * copy of the repository: every command is a process, mostly starting up.
 */
import { strict as assert } from 'node:assert'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXTRACTOR_VERSION } from '../../src/core/parse/version.js'
import { decodeRecord } from '../../src/core/store/record.js'
import { vlt, vltAsync, type CliRun } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** Enough files for the init to pack its records (PACK_MIN_RECORDS), each unrelated to the ledger. */
const FILLER = 300

function fixtureFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'README.md': '# Ledger\n\nThe ledger keeps accounts. `ledger_total` sums the entries of an account.\n\n## Reports\n\nReports print balances.\n',
    'src/ledger/core.py': [
      '"""The ledger\'s core: entries and totals."""',
      '',
      '',
      'class Entry:',
      '    def __init__(self, account, amount):',
      '        self.account = account',
      '        self.amount = amount',
      '',
      '',
      'def ledger_total(entries, account):',
      '    """Sum the amounts of one account\'s entries."""',
      '    return sum(entry.amount for entry in entries if entry.account == account)',
      '',
    ].join('\n'),
    'src/ledger/report.py': [
      'from src.ledger.core import ledger_total',
      '',
      '',
      'def ledger_balance(entries, account):',
      '    """The balance line of a report."""',
      '    return f"{account}: {ledger_total(entries, account)}"',
      '',
    ].join('\n'),
    'src/ledger/audit.py': [
      'from src.ledger.core import ledger_total',
      '',
      '',
      'def ledger_audit(entries, accounts):',
      '    """Totals of every account, for an audit."""',
      '    return {account: ledger_total(entries, account) for account in accounts}',
      '',
    ].join('\n'),
  }
  for (let i = 0; i < FILLER; i++) files[`filler/f${i}.py`] = `def filler_${i}(value):\n    """Filler number ${i}."""\n    return value + ${i}\n`
  return files
}

interface Command {
  name: string
  args: string[]
}

const SEARCH: Command = { name: 'search', args: ['coderag', 'search', 'how is the ledger total of an account computed'] }
const REFS: Command = { name: 'refs', args: ['coderag', 'refs', 'ledger_total'] }
/** The commands a user runs next, in the order the cases take them. */
const COMMANDS: Command[] = [
  SEARCH,
  { name: 'def', args: ['coderag', 'def', 'ledger_balance'] },
  REFS,
  { name: 'map', args: ['coderag', 'map'] },
  { name: 'oracle', args: ['oracle', 'where is ledger_total used', '--no-log'] },
  { name: 'status', args: ['coderag', 'status'] },
  { name: 'sync', args: ['coderag', 'sync'] },
]

type Damage = 'truncate' | 'flip' | 'garbage' | 'zero' | 'delete'
const DAMAGES: Damage[] = ['truncate', 'flip', 'garbage', 'zero', 'delete']

/** What a target needs to know about the built fixture. */
interface Built {
  repo: GitFixture
  /** The undamaged `.vlt/`. */
  vlt: string
  headTree: string
  /** The tree HEAD's delta derives its aggregates from (the initial commit's). */
  anchorTree: string
  objects: string
  loose(blob: string, language: string): string
  pack: PackIndex & { file: string }
}

type PackIndex = { pack: string; keys: string[]; offsets: Float64Array; lengths: Uint32Array }

/** A file (or directory) under `.vlt/` to damage; for a pack, the byte to flip lies in a record the queries read. */
interface Target {
  kind: string
  locate(built: Built): { path: string; flipAt?: number }
  /** Damages that apply (a directory can only be removed). */
  damages?: Damage[]
  /** Part of the code index proper (not a cache rebuilt on use, nor notes or history): status reports it missing or damaged. */
  core?: boolean
}

const TARGETS: Target[] = [
  { kind: 'loose blob record', core: true, locate: (b) => ({ path: b.loose(b.repo.git('rev-parse', 'HEAD:src/ledger/report.py'), 'python') }) },
  { kind: 'overlay blob record', core: true, locate: (b) => ({ path: b.loose(b.repo.git('hash-object', 'src/ledger/audit.py'), 'python') }) },
  {
    kind: 'pack',
    core: true,
    locate: (b) => {
      const core = b.pack.keys.indexOf(`${b.repo.git('rev-parse', 'HEAD:src/ledger/core.py')}.python`)
      assert.ok(core >= 0, 'core.py is packed')
      return { path: `${b.objects}/packs/${b.pack.pack}`, flipAt: b.pack.offsets[core]! + Math.floor(b.pack.lengths[core]! / 2) }
    },
  },
  { kind: 'pack index', core: true, locate: (b) => ({ path: `${b.objects}/packs/${b.pack.file}` }) },
  { kind: 'anchor manifest', core: true, locate: (b) => ({ path: `trees/${b.anchorTree}/manifest.mpk` }) },
  { kind: 'delta manifest', core: true, locate: (b) => ({ path: `trees/${b.headTree}/manifest.mpk` }) },
  { kind: 'bm25', core: true, locate: (b) => ({ path: `trees/${b.anchorTree}/bm25.mpk` }) },
  { kind: 'symbols', core: true, locate: (b) => ({ path: `trees/${b.anchorTree}/symbols.mpk` }) },
  { kind: 'graph', core: true, locate: (b) => ({ path: `trees/${b.anchorTree}/graph.mpk` }) },
  { kind: 'repomap', locate: (b) => ({ path: `trees/${b.headTree}/repomap.mpk` }) },
  { kind: 'delta edges', locate: (b) => ({ path: `trees/${b.headTree}/edges.mpk` }) },
  { kind: 'term associations', locate: (b) => ({ path: `trees/${b.anchorTree}/term-associations.mpk` }) },
  { kind: 'state', core: true, locate: () => ({ path: 'state.mpk' }) },
  { kind: 'overlay', core: true, locate: () => ({ path: 'overlay/overlay.mpk' }) },
  { kind: 'notes index', locate: (b) => ({ path: `notes/trees/${readdirSync(join(b.vlt, 'notes', 'trees'))[0]}` }) },
  { kind: 'history index', locate: () => ({ path: 'history/index.mpk' }) },
  // A partial restore of a CI cache: whole directories gone.
  { kind: 'objects directory', core: true, locate: () => ({ path: 'objects' }), damages: ['delete'] },
  { kind: 'trees directory', core: true, locate: () => ({ path: 'trees' }), damages: ['delete'] },
]

/** One case: a damage to a target, met first by a command, in text or JSON. */
interface Case {
  target: Target
  damage: Damage
  first: Command
  json: boolean
}

/** What the commands of a case printed: the first, then (after status and sync) a query in JSON, then verify. */
interface Outcome {
  first: CliRun
  query?: CliRun
  verify: CliRun
}

/** Commands that answer a question, whose answer is compared as it is. */
const ANSWERS = new Set(['search', 'def', 'refs', 'map', 'oracle'])

describe('reliability: a damaged .vlt/ heals itself', function () {
  this.timeout(600_000)
  const cases: Case[] = []
  let number = 0
  for (const target of TARGETS) {
    // Each case meets its damage with the next command in turn, a round of them in text, the next in JSON.
    for (const damage of target.damages ?? DAMAGES) {
      cases.push({ target, damage, first: COMMANDS[number % COMMANDS.length]!, json: Math.floor(number / COMMANDS.length) % 2 === 1 })
      number++
    }
  }
  let built: Built
  const expected = new Map<string, { text: CliRun; json: CliRun }>()
  const outcomes = new Map<Case, Promise<Outcome>>()
  const workspaces: string[] = []
  let started = 0

  before(async function () {
    started = Date.now()
    const repo = createGitRepo({ files: fixtureFiles() })
    ok(vlt(repo.dir, ['coderag', 'init']))
    // A one-file commit: HEAD becomes a delta tree whose changed file has a loose record.
    repo.write({ 'src/ledger/report.py': readFileSync(join(repo.dir, 'src/ledger/report.py'), 'utf8') + '\n\ndef ledger_footer(entries):\n    return ledger_total(entries, "all")\n' })
    repo.commit('report footer')
    // Uncommitted edits: the overlay (a modified file and a new one, loose records of working-tree content).
    repo.write({
      'src/ledger/audit.py': readFileSync(join(repo.dir, 'src/ledger/audit.py'), 'utf8') + '\n\ndef ledger_audit_all(entries):\n    return ledger_audit(entries, {e.account for e in entries})\n',
      'src/ledger/notes_draft.py': 'from src.ledger.core import ledger_total\n\n\ndef draft(entries):\n    return ledger_total(entries, "draft")\n',
    })
    ok(vlt(repo.dir, ['coderag', 'sync']))
    // Leave the caches queries and status write (repo map tokens, term associations, notes, history).
    for (const command of COMMANDS) ok(vlt(repo.dir, command.args))

    const pristine = join(mkdtempSync(join(tmpdir(), 'vlt-pristine-')), '.vlt')
    cpSync(join(repo.dir, '.vlt'), pristine, { recursive: true })
    for (const command of COMMANDS) expected.set(command.name, { text: ok(vlt(repo.dir, command.args)), json: ok(vlt(repo.dir, [...command.args, '--json'])) })

    const objects = `objects/${EXTRACTOR_VERSION}`
    const indexes = readdirSync(join(pristine, objects, 'packs')).filter((name) => name.endsWith('.idx'))
    assert.equal(indexes.length, 1, 'the init wrote one pack')
    const file = indexes[0]!
    const pack = decodeRecord<PackIndex>(readFileSync(join(pristine, objects, 'packs', file)), 'blob-pack-index', 1, file)
    built = {
      repo,
      vlt: pristine,
      headTree: repo.git('rev-parse', 'HEAD^{tree}'),
      anchorTree: repo.git('rev-parse', 'HEAD~1^{tree}'),
      objects,
      loose: (blob, language) => `${objects}/${blob.slice(0, 2)}/${blob.slice(2)}.${language}.mpk`,
      pack: { ...pack, file },
    }

    // The cases run side by side, each in a copy of the repository of its own (CI has cores to spare,
    // and each command is a process mostly starting up): every \`it\` below waits for its own.
    const free: string[] = []
    for (let i = 0; i < Math.min(4, Math.max(2, availableParallelism())); i++) {
      const copy = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-case-')))
      cpSync(repo.dir, copy, { recursive: true })
      workspaces.push(copy)
      free.push(copy)
    }
    const waiting: Array<() => void> = []
    const borrow = async (): Promise<string> => {
      while (free.length === 0) await new Promise<void>((resolve) => waiting.push(resolve))
      return free.pop()!
    }
    for (const c of cases) {
      const outcome = (async () => {
        const dir = await borrow()
        try {
          return await runCase(dir, c)
        } finally {
          free.push(dir)
          waiting.shift()?.()
        }
      })()
      outcome.catch(() => {})
      outcomes.set(c, outcome)
    }
  })

  after(async function () {
    await Promise.allSettled(outcomes.values())
    // The suite's own budget: CI runs it on every push.
    console.log(`      (corruption suite: ${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s)`)
    built?.repo.cleanup()
    if (built) rmSync(join(built.vlt, '..'), { recursive: true, force: true })
    for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
  })

  async function runCase(dir: string, { target, damage, first, json }: Case): Promise<Outcome> {
    const { path, flipAt } = target.locate(built)
    assert.ok(existsSync(join(built.vlt, path)), `the undamaged index has its ${target.kind}: ${path}`)
    rmSync(join(dir, '.vlt'), { recursive: true, force: true })
    cpSync(built.vlt, join(dir, '.vlt'), { recursive: true })
    inflict(join(dir, '.vlt', path), damage, flipAt)
    return {
      first: await vltAsync(dir, json ? [...first.args, '--json'] : first.args),
      query: ANSWERS.has(first.name) ? undefined : await vltAsync(dir, [...SEARCH.args, '--json']),
      verify: await vltAsync(dir, ['coderag', 'verify', '--json']),
    }
  }

  for (const c of cases) {
    const { target, damage, first, json } = c
    it(`${target.kind} × ${damage}, then ${first.name}${json ? ' --json' : ''}`, async function () {
      const outcome = await outcomes.get(c)!
      const after = `${first.name}${json ? ' --json' : ''} after ${damage} of the ${target.kind}`
      const run = outcome.first
      assert.equal(run.status, 0, `${after}\n${run.stderr}${run.stdout}`)
      const want = json ? expected.get(first.name)!.json : expected.get(first.name)!.text
      assert.ok(lines(run.stderr).filter(isWarning).length <= 1, `at most one warning line: ${after}\n${run.stderr}`)
      assert.deepEqual(lines(run.stderr).filter((line) => !isWarning(line)), lines(want.stderr), `nothing else on stderr: ${after}`)
      if (ANSWERS.has(first.name)) assertSameAnswer(run, want, json, after)
      else if (first.name === 'status') checkStatus(c, run, after)
      else assert.match(json ? JSON.parse(run.stdout).treeHash : run.stdout, /^tree [0-9a-f]{12}|^[0-9a-f]{40}$/, `sync: ${after}`)

      if (outcome.query) {
        // The index status or sync left (they need not see damage inside a file) answers as the undamaged one.
        assert.equal(outcome.query.status, 0, `search --json after ${after}: ${outcome.query.stderr}${outcome.query.stdout}`)
        assertSameAnswer(outcome.query, expected.get(SEARCH.name)!.json, true, `search --json after ${after}`)
      }
      const verify = outcome.verify
      assert.equal(verify.status, 0, `verify after ${after}: ${verify.stderr}${verify.stdout}`)
      assert.equal(JSON.parse(verify.stdout).whole, true, verify.stdout)
    })
  }

  function checkStatus({ target }: Case, run: CliRun, after: string): void {
    // Status reports (it repairs nothing): the index is still there, and incomplete until repaired.
    const json = run.stdout.startsWith('{') ? (JSON.parse(run.stdout) as { indexed: boolean; files: number; integrity: { complete: boolean } }) : undefined
    const want = expected.get('status')!
    if (json) {
      if (json.indexed) assert.equal(json.files, JSON.parse(want.json.stdout).files, after)
      if (target.core) assert.equal(json.integrity.complete, false, `${after}: ${run.stdout}`)
      return
    }
    assert.doesNotMatch(run.stdout, /Not indexed yet/, after)
    const files = lines(run.stdout).find((line) => line.startsWith('files '))
    if (files !== undefined) assert.equal(files, lines(want.text.stdout).find((line) => line.startsWith('files ')), after)
    if (target.core) assert.match(run.stdout, /^integrity +incomplete|^The index is damaged/m, `${after}: ${run.stdout}`)
  }
})

/** The same answer: the same text, or the same JSON but for timings and (at most one) warning about the damage. */
function assertSameAnswer(run: CliRun, want: CliRun, json: boolean, after: string): void {
  if (!json) return assert.equal(run.stdout, want.stdout, `answers as on the undamaged index: ${after}`)
  const answer = JSON.parse(run.stdout) as { warnings?: string[] }
  assert.ok((answer.warnings ?? []).filter(isDamageWarning).length <= 1, `${after}: ${answer.warnings}`)
  // The oracle's conversation context counts every question asked, the undamaged run's included: not part of the answer.
  const asked = (value: { warnings?: string[] }): { warnings?: string[] } => Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'context'))
  // The damage is reported on stderr ("warning: ...") or, by a query that rebuilt a cache of its own (term associations), among its warnings.
  const stripped = (value: { warnings?: string[] }): unknown => stable(value.warnings ? { ...asked(value), warnings: value.warnings.filter((warning) => !isWarning(warning) && !isDamageWarning(warning)) } : asked(value))
  assert.deepEqual(stripped(answer), stripped(JSON.parse(want.stdout)), `answers as on the undamaged index: ${after}`)
}

/** A warning line: the command's own, or one the oracle passes on from its code source (`code: …`). */
function isDamageWarning(line: string): boolean {
  return /missing|damaged|mismatch|truncated|empty|magic|rebuilt|re-extracted/.test(line)
}

function isWarning(line: string): boolean {
  return line.startsWith('warning: ') || line.startsWith('code: ')
}

function inflict(path: string, damage: Damage, flipAt?: number): void {
  if (damage === 'delete') return rmSync(path, { recursive: true, force: true })
  const size = statSync(path).size
  if (damage === 'zero') return truncateSync(path, 0)
  if (damage === 'truncate') return truncateSync(path, Math.floor(size / 2))
  if (damage === 'garbage') return writeFileSync(path, Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919 + 13) & 0xff)))
  const bytes = readFileSync(path)
  const at = flipAt ?? Math.floor(size / 2)
  bytes[at] = bytes[at]! ^ 0xff
  writeFileSync(path, bytes)
}

function ok(run: CliRun): CliRun {
  assert.equal(run.status, 0, run.stderr + run.stdout)
  return run
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '')
}

/** A result without what differs between two runs of the same answer (timings). */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'durationMs').map(([key, inner]) => [key, stable(inner)]))
}
