/**
 * Change notification for a working tree and its git directory. On Linux, Node's recursive
 * `fs.watch` walks the tree synchronously, stats every file and holds an inotify watch for each,
 * the git and .vlt directories included: on a 10k-file repository that is 21k watches and ~0.4 s
 * of blocked start-up per server, and ten servers exhaust a user's default inotify budget. A
 * directory's watch already reports changes to the files in it, so there one watch per directory
 * is kept (skipped directories left out, new directories added as they appear). Elsewhere the
 * recursive watch is native and cheap, and is used as is.
 */
import { watch, type FSWatcher } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

export interface WatchedDir {
  path: string
  /** Directories under it too. */
  recursive: boolean
}

export interface TreeWatcherOptions {
  /** Directories (absolute) to leave out of recursive watching, with everything under them (Linux). */
  skip: readonly string[]
  /** Something under `root` changed: its path relative to `root`, or null when unknown. */
  onChange: (path: string | null) => void
  /** Watching failed for good (e.g. the inotify budget ran out); the watcher has closed. */
  onError: (error: Error) => void
}

const PER_DIRECTORY = process.platform === 'linux'

export class TreeWatcher {
  private readonly watchers = new Map<string, FSWatcher>()
  private closed = false

  private constructor(
    private readonly root: string,
    /** The directories asked for: losing one of those ends watching. */
    private readonly dirs: readonly WatchedDir[],
    private readonly options: TreeWatcherOptions,
  ) {}

  /** Watches `dirs` (paths reported relative to `root`); throws when the first watch cannot be set up. */
  static async start(root: string, dirs: readonly WatchedDir[], options: TreeWatcherOptions): Promise<TreeWatcher> {
    const watcher = new TreeWatcher(root, dirs, options)
    try {
      for (const dir of dirs) {
        if (dir.recursive && PER_DIRECTORY) await watcher.walk(dir.path, dir.path)
        else watcher.add(dir.path, dir.recursive)
      }
    } catch (error) {
      watcher.close()
      throw error
    }
    return watcher
  }

  /** Directories watched (one each on Linux; the recursive roots elsewhere). */
  get size(): number {
    return this.watchers.size
  }

  close(): void {
    this.closed = true
    for (const watcher of this.watchers.values()) watcher.close()
    this.watchers.clear()
  }

  private add(dir: string, recursive: boolean): void {
    if (this.closed || this.watchers.has(dir)) return
    const watcher = watch(dir, { recursive, persistent: false }, (event, filename) => this.changed(dir, event, filename === null ? null : filename.toString()))
    watcher.on('error', (error) => {
      if (this.dirs.some((asked) => asked.path === dir)) return this.fail(error)
      this.forget(dir)
      this.options.onChange(null)
    })
    this.watchers.set(dir, watcher)
  }

  /**
   * Watches `dir` and the directories under it, skipped ones excepted — those that hold the
   * watched directory `from` the walk started at are not skipped under it.
   */
  private async walk(dir: string, from: string): Promise<void> {
    if (this.options.skip.some((skip) => within(dir, skip) && !within(from, skip))) return
    this.add(dir, false)
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      // Removed or unreadable meanwhile: nothing under it to watch.
      return
    }
    await Promise.all(entries.filter((entry) => entry.isDirectory()).map((entry) => this.walk(join(dir, entry.name), from)))
  }

  private changed(dir: string, event: string, name: string | null): void {
    if (this.closed) return
    const path = name === null ? null : join(dir, name)
    this.options.onChange(path === null ? null : relative(this.root, path))
    // A directory appearing under a walked one is walked in turn; one disappearing is dropped.
    const from = this.walkedFrom(dir)
    if (path === null || event !== 'rename' || !PER_DIRECTORY || from === undefined) return
    lstat(path).then(
      (info) => {
        if (info.isDirectory() && !this.watchers.has(path)) return this.walk(path, from).catch((error: unknown) => this.fail(error))
      },
      () => this.forget(path),
    )
  }

  /** Stops watching `dir` and what is under it (it was removed). */
  private forget(dir: string): void {
    for (const [path, watcher] of this.watchers) {
      if (within(path, dir)) {
        watcher.close()
        this.watchers.delete(path)
      }
    }
  }

  private fail(error: unknown): void {
    if (this.closed) return
    this.close()
    this.options.onError(error instanceof Error ? error : new Error(String(error)))
  }

  /** The innermost recursively watched directory holding `dir`; undefined for one watched on its own (the git dir). */
  private walkedFrom(dir: string): string | undefined {
    let from: string | undefined
    for (const asked of this.dirs) if (asked.recursive && within(dir, asked.path) && (from === undefined || asked.path.length > from.length)) from = asked.path
    return from
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}${sep}`)
}
