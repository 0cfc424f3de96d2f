/**
 * The commit index through the remote cache ([cache] in the user's config): a fresh clone of a
 * commit CI indexed takes the packs of HEAD's history instead of reading every commit's patch from
 * git (git's diff work is almost all of a first commit index: 8 CPU-s on redis's 10,839 commits).
 *
 * The entry for a history (`commit-index/<pack format>/<log settings>/<max_commits>/<HEAD>`) names
 * a bundle record listing each pack's id, count and digest; packs are content addressed. Nothing
 * is taken on trust beyond the cache's writers: a pack must hash to its digest, pass its record
 * checks, be well formed, and hold only commits of this clone's HEAD history, none twice, under
 * the id its commits give it. A pack that fails is rejected (counted) and its commits read from git.
 */
import { createHash } from 'node:crypto'
import type { RemoteCache } from '../cache/index.js'
import { passesChecks } from '../errors.js'
import { decodeRecord, encodeRecord, readFileConfined, writeFileAtomic, type VltPaths } from '../store/index.js'
import { DIFF_ATTRIBUTES, ECMA_FUNCNAME } from './log.js'
import { COMMIT_PACK_KIND, COMMIT_PACK_VERSION, packIdOf, type PackRef } from './store.js'
import type { CommitRecord } from './types.js'

const BUNDLE_KIND = 'commit-bundle'
const BUNDLE_VERSION = 1

interface CommitBundle {
  head: string
  packs: Array<PackRef & { digest: string }>
}

/** What a pack's commits depend on besides the commits: the pack format and how git was asked for them. */
const LOG_SETTINGS = createHash('sha256').update(DIFF_ATTRIBUTES).update('\0').update(ECMA_FUNCNAME).digest('hex').slice(0, 16)

function historyKey(head: string, maxCommits: number): string {
  return `commit-index/${COMMIT_PACK_KIND}.${COMMIT_PACK_VERSION}/${LOG_SETTINGS}/${maxCommits}/${head}`
}

/**
 * Takes the packs the cache holds for `head`'s history, all or none: stored as a sync would when
 * together they hold exactly `wanted` (HEAD's history, newest first, as their order keeps it), else
 * nothing is written and the caller reads the history from git.
 */
export async function takeRemotePacks(remote: RemoteCache, paths: VltPaths, head: string, maxCommits: number, wanted: readonly string[]): Promise<PackRef[]> {
  if (!remote.usable || wanted.length === 0) return []
  let bundle: CommitBundle | undefined
  await remote.get(historyKey(head, maxCommits), (bytes) => (bundle = decodeBundle(bytes, head)) !== undefined, 'history')
  if (!bundle) return []
  const taken: Array<{ pack: PackRef; bytes: Buffer }> = []
  let next = 0
  for (const pack of bundle.packs) {
    // Each pack must continue HEAD's history where the previous one stopped.
    const expected = wanted.slice(next, next + pack.commits)
    const bytes = await remote.getContent(pack.digest, (candidate) => acceptPack(candidate, pack, expected))
    if (!bytes) return []
    taken.push({ pack: { id: pack.id, commits: pack.commits }, bytes })
    next += pack.commits
  }
  if (next !== wanted.length) return []
  for (const { pack, bytes } of taken) await writeFileAtomic(paths.commitPack(pack.id), bytes, { durable: false })
  remote.tookCommits(next)
  return taken.map(({ pack }) => pack)
}

/** Writes the packs of `head`'s history back, unless the cache already has them (one HEAD request). */
export async function pushRemotePacks(remote: RemoteCache, paths: VltPaths, head: string, maxCommits: number, packs: readonly PackRef[]): Promise<void> {
  const key = historyKey(head, maxCommits)
  if (!remote.pushing || (await remote.hasEntry(key))) return
  const listed: CommitBundle['packs'] = []
  for (const pack of packs) {
    const bytes = await readFileConfined(paths.commitPack(pack.id))
    const digest = bytes && (await remote.putContent(bytes))
    if (!digest) return
    listed.push({ ...pack, digest })
  }
  await remote.put(key, encodeRecord(BUNDLE_KIND, BUNDLE_VERSION, { head, packs: listed } satisfies CommitBundle), 'history')
}

function decodeBundle(bytes: Buffer, head: string): CommitBundle | undefined {
  const bundle = passesChecks(() => decodeRecord<CommitBundle>(bytes, BUNDLE_KIND, BUNDLE_VERSION, 'commit bundle'))
  const wellFormed = bundle?.head === head
    && Array.isArray(bundle.packs)
    && bundle.packs.every((pack) => typeof pack?.id === 'string' && typeof pack.digest === 'string' && Number.isSafeInteger(pack.commits) && pack.commits > 0)
  return wellFormed ? bundle : undefined
}

/** Whether the pack is what the bundle says: well-formed commits, exactly `expected` in order, under the id they give it. */
function acceptPack(bytes: Buffer, pack: PackRef, expected: readonly string[]): boolean {
  const record = passesChecks(() => decodeRecord<{ commits: CommitRecord[] }>(bytes, COMMIT_PACK_KIND, COMMIT_PACK_VERSION, `commit pack ${pack.id}`))
  const commits = record?.commits
  return Array.isArray(commits)
    && commits.length === pack.commits
    && commits.length === expected.length
    && commits.every((commit, i) => isCommitRecord(commit) && commit.hash === expected[i])
    && packIdOf(commits) === pack.id
}

function isCommitRecord(value: unknown): value is CommitRecord {
  const commit = value as CommitRecord
  return typeof commit === 'object' && commit !== null
    && typeof commit.hash === 'string' && Number.isFinite(commit.time) && typeof commit.author === 'string'
    && typeof commit.subject === 'string' && typeof commit.body === 'string'
    && typeof commit.terms?.terms === 'string' && Array.isArray(commit.terms.tfs) && commit.terms.tfs.every(Number.isFinite)
    && Array.isArray(commit.files)
    && commit.files.every((file) => typeof file?.path === 'string' && typeof file.status === 'string' && (file.from === undefined || typeof file.from === 'string') && (file.symbols === undefined || (Array.isArray(file.symbols) && file.symbols.every((name) => typeof name === 'string'))))
}

