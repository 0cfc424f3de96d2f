/**
 * One query context kept in memory for the server's lifetime, brought up to date just in time:
 * before a tool call, a cheap check (HEAD's tree, `git status`, and the stat of each dirty file)
 * tells whether anything changed since the context was opened; only then is the index synced and
 * the context re-opened. A file watcher on the working tree makes that check free when nothing
 * moved (a status costs ~40 ms on 10k files, more than a warm query, ~1 s on Linux's 78k); without
 * one (too many directories, a git dir outside the working tree) the check runs at most once per
 * interval. Watchers can miss events, so a watched tree is looked at again every 30 s too, but in
 * the background, on a timer: meanwhile a query answers from the current context unless the
 * watcher has seen something change, so none ever waits for that safety look.
 *
 * The blob records the context reads chunk text from are looked at before every call too (their
 * directory and the names of the packs, a stat and a readdir): when they are gone (a cache restore,
 * a cleanup), the context is opened again, which restores them all at once, rather than healing
 * them one by one as queries happen to read them.
 *
 * It keeps the repository's language servers too (src/core/lsp), for queries that ask for hover
 * types: started at first need, stopped after `[lsp] idle_s` unused and by close().
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join, relative, sep } from 'node:path'
import { GitError, openRepo, statusArgs, type Repo } from '../git/index.js'
import { runInRepo } from '../git/repo.js'
import { openQueryContext, type QueryContext } from '../query/context.js'
import { LspServers } from '../lsp/index.js'
import { learnInBackground } from '../semantic/model-store.js'
import { TreeWatcher, type WatchedDir } from './tree-watcher.js'

export const CHECK_INTERVAL_ENV = 'VLT_MCP_CHECK_MS'
const DEFAULT_CHECK_INTERVAL_MS = 1000
/** Even with a watcher, look again after this long: watchers can miss events (directories created in a burst). */
const WATCHED_RECHECK_MS = 30_000

export interface WarmIndexOptions {
  warn: (message: string) => void
  env?: NodeJS.ProcessEnv
  /** How often a watched tree is looked at again, in the background (default 30 s). */
  recheckMs?: number
}

export class WarmIndex {
  private current: { qctx: QueryContext; signature: string; records: string } | undefined
  /**
   * The refresh under way, when it began looking at the repository, and whether it is the periodic
   * look at a watched tree (which no query waits for while the watcher has seen nothing change).
   */
  private refreshing: { promise: Promise<QueryContext>; startedAt: number; recheck: boolean } | undefined
  private dirty = true
  private lastCheck = 0
  /** When get() was last called: an index nobody asks is not looked at again (a status costs ~1 s on Linux). */
  private lastAsked = 0
  private watcher: TreeWatcher | undefined
  private recheckTimer: NodeJS.Timeout | undefined
  private readonly interval: number
  readonly lsp: LspServers

  private constructor(
    readonly cwd: string,
    readonly repo: Repo,
    private readonly options: WarmIndexOptions,
  ) {
    const env = options.env ?? process.env
    const configured = Number(env[CHECK_INTERVAL_ENV])
    this.interval = env[CHECK_INTERVAL_ENV] !== undefined && Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_CHECK_INTERVAL_MS
    this.lsp = new LspServers(this.root)
  }

  static async open(cwd: string, options: WarmIndexOptions): Promise<WarmIndex> {
    const warm = new WarmIndex(cwd, await openRepo(cwd), options)
    await warm.startWatching()
    return warm
  }

  /** The repository's working tree (its git dir for a bare repository). */
  get root(): string {
    return this.repo.root ?? this.repo.gitDir
  }

  /**
   * The up-to-date context; when a refresh fails, the previous one marked stale. A caller may join a
   * refresh only if it began after the caller arrived: one that began earlier (the warm-up, say)
   * may have looked at the repository before the commit this caller is asking about.
   */
  async get(): Promise<QueryContext> {
    const arrivedAt = performance.now()
    this.lastAsked = Date.now()
    // The watcher's events of a change made just before this call (a commit, then at once a
    // question) may still wait in the kernel's queue: the event loop's poll phase delivers them,
    // so "nothing changed" below waits for one. An immediate queued from the check phase runs in
    // the next turn, so two of them always have a poll phase between them (one did not when this
    // call came from the poll phase itself: the events arrived a millisecond after the decision).
    if (this.watcher) await new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
    while (this.refreshing && this.refreshing.startedAt < arrivedAt) {
      if (this.answersDuringRecheck()) return this.current!.qctx
      await this.refreshing.promise.catch(() => undefined)
    }
    if (this.refreshing) return this.answersDuringRecheck() ? this.current!.qctx : this.refreshing.promise
    if (this.unchanged() && !this.needsCheck()) return this.current!.qctx
    return this.startRefresh(false)
  }

  /** Drops the loaded context, in which a query found damage: the next get() opens it again. */
  forget(): void {
    this.current = undefined
    this.dirty = true
  }

  /** Stops watching and kills the language servers (the owner is exiting). */
  close(): void {
    clearInterval(this.recheckTimer)
    this.watcher?.close()
    this.watcher = undefined
    this.lsp.close()
  }

  /** Whether the current context still answers, as far as the watcher and the blob records tell. */
  private unchanged(): boolean {
    return this.current !== undefined && !(this.watcher && this.dirty) && recordsLook(this.current.qctx) === this.current.records
  }

  /** A periodic look is under way, and the watcher (still watching) has seen nothing change. */
  private answersDuringRecheck(): boolean {
    return this.refreshing?.recheck === true && this.watcher !== undefined && this.unchanged()
  }

  /** Watched, a query looks at the repository only when the watcher saw a change; unwatched, once per interval. */
  private needsCheck(): boolean {
    return this.watcher ? this.dirty : Date.now() - this.lastCheck >= this.interval
  }

  private startRefresh(recheck: boolean): Promise<QueryContext> {
    const promise = this.refresh().finally(() => (this.refreshing = undefined))
    this.refreshing = { promise, startedAt: performance.now(), recheck }
    return promise
  }

  /**
   * The periodic look at a watched tree: when it was asked since the last look and no refresh is
   * under way. Not when the watcher saw a change: the next query brings that in, and no query may
   * answer from the current context while a look that began after the change runs.
   */
  private recheck(): void {
    if (!this.watcher || this.dirty || this.refreshing || this.lastAsked <= this.lastCheck) return
    this.startRefresh(true).catch(() => {
      // refresh() warns when it answers from the last context; the next query meets anything else.
    })
  }

  private async refresh(): Promise<QueryContext> {
    this.dirty = false
    this.lastCheck = Date.now()
    const signature = await workSignature(this.repo)
    const current = this.current
    if (current && current.signature === signature && !current.qctx.freshness.stale && recordsLook(current.qctx) === current.records) return current.qctx
    try {
      const qctx = await openQueryContext(this.cwd, { warn: this.options.warn })
      this.current = { qctx, signature, records: recordsLook(qctx) }
      // Off this thread: the first prose search then finds the code view's model ready.
      learnInBackground(qctx).catch((error: unknown) => this.options.warn(`warning: learning the term associations failed: ${(error as Error).message}`))
      return qctx
    } catch (error) {
      if (!this.current) throw error
      this.options.warn(`warning: could not bring the index up to date (${(error as Error).message}); answering from tree ${this.current.qctx.freshness.treeHash.slice(0, 12)}`)
      // Retried at the next call.
      this.dirty = true
      return { ...this.current.qctx, freshness: { ...this.current.qctx.freshness, stale: true, staleReason: 'update-failed' } }
    }
  }

  private async startWatching(): Promise<void> {
    const root = this.repo.root
    const { gitDir, commonDir, vltDir } = this.repo
    if (root === null || !isInside(root, gitDir) || !isInside(root, commonDir)) return
    const vlt = relative(root, vltDir) + sep
    const objects = relative(root, join(commonDir, 'objects')) + sep
    const logs = relative(root, join(commonDir, 'logs')) + sep
    // The git directory is watched for what moves HEAD (its own files, the refs), not its objects.
    const dirs: WatchedDir[] = [{ path: root, recursive: true }, { path: gitDir, recursive: false }]
    if (commonDir !== gitDir) dirs.push({ path: commonDir, recursive: false })
    if (existsSync(join(commonDir, 'refs'))) dirs.push({ path: join(commonDir, 'refs'), recursive: true })
    try {
      this.watcher = await TreeWatcher.start(root, dirs, {
        skip: [vltDir, gitDir, commonDir],
        onChange: (name) => {
          if (name === null || !(name.startsWith(vlt) || name.startsWith(objects) || name.startsWith(logs) || name.endsWith('.lock'))) this.dirty = true
        },
        onError: (error) => {
          this.options.warn(`warning: stopped watching the working tree (${error.message}); checking for changes every ${this.interval} ms instead`)
          this.watcher = undefined
        },
      })
    } catch (error) {
      this.options.warn(`warning: cannot watch the working tree (${(error as Error).message}); checking for changes every ${this.interval} ms instead`)
      this.watcher = undefined
      return
    }
    this.recheckTimer = setInterval(() => this.recheck(), this.options.recheckMs ?? WATCHED_RECHECK_MS)
    // The owner (a server) keeps the process alive, not this look.
    this.recheckTimer.unref()
  }
}

/** The blob records' directory and the names of its packs: what changes when records are removed wholesale. */
function recordsLook(qctx: QueryContext): string {
  const { recordsDir, packsDir } = qctx.index.blobs
  const dir = statSync(recordsDir, { throwIfNoEntry: false })
  if (!dir) return ''
  let packs: string[] = []
  try {
    packs = readdirSync(packsDir)
  } catch {
    // No packs (a small index): the directory alone tells.
  }
  return `${dir.ino}\0${packs.sort().join('\0')}`
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
}

/**
 * What the index depends on, cheaply: HEAD's commit (the commit history follows it, also when the
 * tree stays: an amended message, an empty commit) and tree, the status lines, and size and mtime
 * of every file the status names (a second edit to an already modified file changes no status line).
 */
async function workSignature(repo: Repo): Promise<string> {
  const hash = createHash('sha1')
  const head = runInRepo(repo, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}']).catch((error: unknown) => {
    if (error instanceof GitError) return Buffer.from('no-commit')
    throw error
  })
  const status = repo.root === null ? Promise.resolve(Buffer.alloc(0)) : runInRepo(repo, statusArgs(repo))
  const [headOut, statusOut] = await Promise.all([head, status])
  hash.update(headOut).update('\0').update(statusOut)
  const paths = statusPaths(statusOut.toString('utf8'))
  const stats = await Promise.all(paths.map((path) => lstat(join(repo.root!, path)).catch(() => undefined)))
  stats.forEach((info, i) => hash.update(`\0${paths[i]}\0${info ? `${info.size}:${info.mtimeMs}:${info.ino}` : '-'}`))
  return hash.digest('hex')
}


/** Paths of `git status --porcelain=v2 -z` records: ordinary (8 fields before the path), unmerged (10), untracked. */
function statusPaths(text: string): string[] {
  const paths: string[] = []
  for (const record of text.split('\0')) {
    const fields = record[0] === '1' ? 8 : record[0] === 'u' ? 10 : record[0] === '?' ? 1 : -1
    if (fields < 0) continue
    let start = 0
    for (let i = 0; i < fields && start >= 0; i++) start = record.indexOf(' ', start) + 1
    if (start > 0) paths.push(record.slice(start))
  }
  return paths
}
