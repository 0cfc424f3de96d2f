import { configFingerprint, loadConfig } from '../config/index.js'
import type { VltConfig } from '../config/types.js'
import { createFileSelector, type FileSelector } from '../files/index.js'
import { openRepo, type Repo } from '../git/index.js'
import { ensureVltDir, vltPaths, type VltPaths } from '../store/index.js'

/** Everything an index operation needs to know about where it runs. */
export interface IndexContext {
  repo: Repo
  config: VltConfig
  configFingerprint: string
  paths: VltPaths
  selectFile: FileSelector
}

/** Resolves the repository (UsageError outside one), reads vlt.toml and prepares `.vlt/`. */
export async function openIndexContext(cwd: string): Promise<IndexContext> {
  const repo = await openRepo(cwd)
  const config = await loadConfig(repo.root ?? repo.gitDir)
  await ensureVltDir(repo.vltDir)
  return { repo, config, configFingerprint: configFingerprint(config), paths: vltPaths(repo.vltDir), selectFile: createFileSelector(config) }
}
