/**
 * The localize benchmark's corpora and cases (issue 16): real public repositories with their
 * history, each pinned at a commit and cloned into bench/.work/localize/<name>, and the cases
 * gen-localize drew from them, committed under bench/localize/cases/<name>.json together with
 * their fixed split into a tuning half and a held-out half.
 *
 * Getting the corpora on another machine: the bench never reaches the network. Either clone each
 * repository yourself — `git clone https://github.com/<repo> bench/.work/localize/<name>` (it must
 * contain the pinned commit; the cases were drawn at it) — or point VLT_BENCH_MIRRORS at a folder
 * of git snapshots named `<owner>+<name>/repo` (default /work/.mirror), from which a missing clone
 * is made with `git clone`.
 *
 * Regenerating the cases (only when the corpus list changes: a new draw is a new benchmark):
 * `npm run bench -- localize --generate` runs gen-localize (GEN_LOCALIZE, default
 * ../shared/tools/gen-localize beside the repository, else /work/shared/tools/gen-localize) with
 * its default seed, 60 cases per repository, on each clone at its pin.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { git, WORK } from './corpus.js'

const BENCH = dirname(fileURLToPath(import.meta.url))
const CASES_DIR = join(BENCH, 'localize', 'cases')
const CLONES = join(WORK, 'localize')
const CASES_PER_REPOSITORY = 60

export interface Corpus {
  name: string
  /** owner/name on GitHub. */
  repo: string
  language: string
  /** The commit the cases were drawn at (the snapshot's HEAD then): every case's parent is its ancestor. */
  pin: string
}

/**
 * Every candidate of issue 16 (100–5,000 source files): five languages, small and mid-size trees,
 * short (axum, ripgrep, gson, black: ~2k commits) and long histories (scrapy, jekyll: 11k) — the
 * prototype gained most where the code is large and the history long, and lost on small ones, so
 * both kinds must be in the mean. gen-localize fills 60 cases from each.
 */
export const CORPORA: readonly Corpus[] = [
  { name: 'scrapy', repo: 'scrapy/scrapy', language: 'Python', pin: '11079cb1c85b9e75a39a7269943c69d1a975d485' },
  { name: 'black', repo: 'psf/black', language: 'Python', pin: '8947c48ef2077c3a301b03c1e814dc2e3f78436e' },
  { name: 'vue-core', repo: 'vuejs/core', language: 'TypeScript', pin: 'e2bede96134f757aad5c5b33ac9be055022dbfc8' },
  { name: 'axum', repo: 'tokio-rs/axum', language: 'Rust', pin: '3d78036dcac289d6c1d54934708acb6a5bd73686' },
  { name: 'ripgrep', repo: 'BurntSushi/ripgrep', language: 'Rust', pin: '3fce3b5bb0236da2df6d99672afb8a719642eca7' },
  { name: 'gson', repo: 'google/gson', language: 'Java', pin: '9835b6f90192f79cdf5300c528fc6212455fb6c1' },
  { name: 'jekyll', repo: 'jekyll/jekyll', language: 'Ruby', pin: '202df571314ba1d18e9fccd81d12aaad4a703c38' },
  { name: 'express', repo: 'expressjs/express', language: 'JavaScript', pin: 'a3714473feb3d2908add734d340e7755fd85e0a3' },
]

export type Half = 'tuning' | 'heldout'
export const HALVES: readonly Half[] = ['tuning', 'heldout']

/** One case as gen-localize writes it, plus its half. */
export interface LocalizeCase {
  id: string
  repo: string
  sha: string
  parent: string
  date: string
  subject: string
  query: string
  /** Source files the commit changed: what a ranking must name. */
  gold: string[]
  tests: string[]
  half: Half
}

interface CasesFile {
  generator: string
  repo: string
  head: string
  seed: number
  split: string
  cases: LocalizeCase[]
}

/** The clone of `corpus`, made from the mirror when missing; fails when it lacks the pinned commit. */
export function cloneOf(corpus: Corpus): string {
  const dir = join(CLONES, corpus.name)
  if (!existsSync(join(dir, '.git'))) {
    const mirror = join(process.env.VLT_BENCH_MIRRORS ?? '/work/.mirror', corpus.repo.replace('/', '+'), 'repo')
    if (!existsSync(mirror)) throw new Error(`missing corpus ${corpus.name}: git clone https://github.com/${corpus.repo} ${dir}`)
    mkdirSync(CLONES, { recursive: true })
    execFileSync('git', ['clone', '-q', mirror, dir], { stdio: ['ignore', 'ignore', 'inherit'] })
  }
  try {
    git(dir, 'cat-file', '-e', `${corpus.pin}^{commit}`)
  } catch {
    throw new Error(`${dir} lacks the pinned commit ${corpus.pin}: fetch ${corpus.repo} into it`)
  }
  return dir
}

export function readCases(corpus: Corpus): LocalizeCase[] {
  const file = JSON.parse(readFileSync(join(CASES_DIR, `${corpus.name}.json`), 'utf8')) as CasesFile
  if (file.head !== corpus.pin) throw new Error(`${corpus.name}: cases were drawn at ${file.head}, the corpus is pinned at ${corpus.pin}`)
  return file.cases
}

/**
 * The cases to run: the chosen halves, at most `perHalf` of each (the first in split order, a
 * fixed pseudo-random sample), in commit order as the file lists them (so each sync is a step forward).
 */
export function selectCases(cases: LocalizeCase[], halves: readonly Half[], perHalf: number): LocalizeCase[] {
  const chosen = new Set<string>()
  for (const half of halves) {
    for (const c of bySplitOrder(cases.filter((c) => c.half === half)).slice(0, perHalf)) chosen.add(c.id)
  }
  return cases.filter((c) => chosen.has(c.id))
}

/** A fixed pseudo-random order: by the SHA-256 of the commit hash. */
function bySplitOrder(cases: LocalizeCase[]): LocalizeCase[] {
  const key = (c: LocalizeCase): string => createHash('sha256').update(c.sha).digest('hex')
  return cases.slice().sort((a, b) => (key(a) < key(b) ? -1 : 1))
}

/** Runs gen-localize on the clone at its pin and writes the cases file, half of them held out. */
export function generateCases(corpus: Corpus): { tuning: number; heldout: number } {
  const dir = cloneOf(corpus)
  git(dir, 'checkout', '-q', '-f', '--detach', corpus.pin)
  const drawn = JSON.parse(execFileSync(genLocalize(), [dir, '--cases', String(CASES_PER_REPOSITORY), '--name', corpus.name], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  })) as Omit<CasesFile, 'split'> & { cases: Array<Omit<LocalizeCase, 'half'>> }
  const order = bySplitOrder(drawn.cases.map((c) => ({ ...c, half: 'tuning' as Half })))
  const tuning = new Set(order.slice(0, Math.ceil(order.length / 2)).map((c) => c.id))
  const cases = drawn.cases.map((c): LocalizeCase => ({ ...c, half: tuning.has(c.id) ? 'tuning' : 'heldout' }))
  const split = 'cases sorted by SHA-256 of their commit hash: the first half (rounded up) is for tuning, the rest is held out'
  mkdirSync(CASES_DIR, { recursive: true })
  writeFileSync(join(CASES_DIR, `${corpus.name}.json`), `${JSON.stringify({ ...drawn, split, cases }, null, 1)}\n`)
  return { tuning: tuning.size, heldout: cases.length - tuning.size }
}

function genLocalize(): string {
  const candidates = [process.env.GEN_LOCALIZE, join(BENCH, '..', '..', 'shared', 'tools', 'gen-localize'), '/work/shared/tools/gen-localize']
  const found = candidates.find((path): path is string => path !== undefined && existsSync(path))
  if (!found) throw new Error('gen-localize not found: set GEN_LOCALIZE to its path')
  return found
}
