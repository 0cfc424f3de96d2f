import { RemoteCache } from '../cache/index.js'
import { configFingerprint, loadConfig } from '../config/index.js'
import type { VltConfig } from '../config/types.js'
import { createFileSelector, type FileSelector } from '../files/index.js'
import { openRepoReading, type OpenedRepo, type Repo, type WorkingChange } from '../git/index.js'
import { ensureVltDir, vltPaths, type VltPaths } from '../store/index.js'
import { BlobStore } from './blob-store.js'
import { RecordHealer } from './heal.js'
import { Repairs } from './repairs.js'

/** Everything an index operation needs to know about where it runs. */
export interface IndexContext {
  repo: Repo
  config: VltConfig
  configFingerprint: string
  paths: VltPaths
  selectFile: FileSelector
  /** The blob records, loose and packed. */
  blobs: BlobStore
  /** What this context found missing or damaged under `.vlt/` and rebuilt, until its entry point reports it. */
  repairs: Repairs
  /**
   * `git status`, started as the repository was opened for a caller about to sync: it is most of a
   * no-change sync (~40 ms on 10k files) and runs meanwhile. The next sync takes it (once).
   */
  workingTree?: Promise<WorkingChange[]>
  /** The remote cache of blob records, when the user's config names one ([cache] remote). */
  remote?: RemoteCache
}

export interface OpenIndexOptions {
  /** The caller syncs next, so the working tree is read already (see `workingTree`). */
  syncing?: boolean
  /**
   * The repository as a caller opened it before loading the index modules (a query in process:
   * see openRepoReading), its status started if `syncing`; `cwd` is then not looked at again.
   */
  opened?: Promise<OpenedRepo>
  /** The working tree is read refreshing .git/index's stat data (`coderag init`: see StatusOptions). */
  refreshGitIndex?: boolean
}

/** Resolves the repository (UsageError outside one), reads vlt.toml and prepares `.vlt/`. */
export async function openIndexContext(cwd: string, { syncing = false, opened, refreshGitIndex = false }: OpenIndexOptions = {}): Promise<IndexContext> {
  const { repo, workingTree } = await (opened ?? openRepoReading(cwd, syncing, { refreshIndex: refreshGitIndex }))
  const config = await loadConfig(repo.root ?? repo.gitDir)
  await ensureVltDir(repo.vltDir)
  const paths = vltPaths(repo.vltDir)
  const repairs = new Repairs()
  const blobs = new BlobStore(paths, repairs, new RecordHealer(repo, config.index.maxFileBytes))
  const remote = config.cache.remote ? new RemoteCache({ ...config.cache, remote: config.cache.remote }) : undefined
  return { repo, config, configFingerprint: configFingerprint(config), paths, selectFile: createFileSelector(config), blobs, repairs, workingTree, remote }
}
