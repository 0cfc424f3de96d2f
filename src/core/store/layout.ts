/**
 * Where things live under `.vlt/`. Content-keyed parts never need invalidating: a blob's artifact
 * depends only on its bytes, its language and the extractor version, and a tree's aggregates only
 * on the tree.
 *
 *   .vlt/
 *     .gitignore                 ignores everything but threads/ (see GITIGNORE)
 *     state.mpk                  which tree was indexed last, and when
 *     objects/<extractorVersion>/<hh>/<rest-of-blob-hash>.<language>.mpk
 *                                per-blob artifact, loose; hh = first two hex digits of the git blob
 *                                hash (SHA-1 or SHA-256), fanning out like .git/objects
 *     objects/<extractorVersion>/packs/<id>.pack, <id>.idx
 *                                per-blob artifacts of a large build, packed (see index/blob-store.ts)
 *     trees/<treeHash>/manifest.mpk   per-tree file list, written last: a tree dir without it is unfinished
 *     trees/<treeHash>/<name>.mpk     per-tree aggregates (bm25, symbols, graph, ...)
 *     overlay/overlay.mpk        the working-tree overlay on HEAD (its blobs live in objects/)
 *     commits/index.mpk          the commit index of HEAD's history: which packs hold it (see core/commits)
 *     commits/packs/<id>.mpk     commit records, many per file
 *     scip/index.mpk             the imported SCIP index, with the commit it was built for (see core/scip)
 *     locks/<name>.lock          see lock.ts (and <name>.lock.interrupted: its last holder ended mid-work)
 *     logs/
 *     threads/                   shared conversation threads, committed with the repository
 */
import { join } from 'node:path'
import { sweepTempFilesOf, writeFileAtomic } from './atomic-file.js'
import { confineTo, ensureDirSync, readFileConfined } from './confine.js'
import { unlessUnwritable } from './fault.js'

export interface VltPaths {
  /** The `.vlt/` directory itself. */
  root: string
  gitignore: string
  state: string
  objects: string
  trees: string
  overlayDir: string
  overlay: string
  locks: string
  logs: string
  threads: string
  /** The commit index's directory (src/core/commits). */
  commits: string
  /** Which commit packs make up HEAD's history. */
  commitIndex: string
  /** The imported SCIP index (src/core/scip). */
  scipIndex: string
  /** A pack of commit records; `id` is a hash of the commits it holds. */
  commitPack(id: string): string
  /** Artifact record of one blob as extracted for `language` by extractor `extractorVersion`. */
  blobRecord(blob: string, extractorVersion: number, language: string): string
  /** Directory of the packs of blob records written by extractor `extractorVersion`. */
  blobPacks(extractorVersion: number): string
  treeDir(treeHash: string): string
  /** The tree's manifest record. */
  treeManifest(treeHash: string): string
  /** Another per-tree record, e.g. treeRecord(tree, 'bm25'). */
  treeRecord(treeHash: string, name: string): string
}

/** Git object ids: SHA-1 (40 hex) or SHA-256 (64 hex). */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
/** Keeps callers' names from escaping their directory. */
const NAME = /^[a-z0-9][a-z0-9._-]*$/

/**
 * Paths under `vltDir`, the `.vlt` directory (the git layer decides where it lives, e.g. inside the
 * git dir of a bare repository). Creates nothing; declares `vltDir` a confinement root (confine.ts),
 * so everything at these paths is written, deleted and read inside it.
 */
export function vltPaths(vltDir: string): VltPaths {
  confineTo(vltDir)
  const objects = join(vltDir, 'objects')
  const trees = join(vltDir, 'trees')
  const overlayDir = join(vltDir, 'overlay')
  const treeDir = (treeHash: string): string => join(trees, objectId(treeHash, 'tree'))
  const commits = join(vltDir, 'commits')
  return {
    root: vltDir,
    gitignore: join(vltDir, '.gitignore'),
    state: join(vltDir, 'state.mpk'),
    objects,
    trees,
    overlayDir,
    overlay: join(overlayDir, 'overlay.mpk'),
    locks: join(vltDir, 'locks'),
    logs: join(vltDir, 'logs'),
    threads: join(vltDir, 'threads'),
    commits,
    commitIndex: join(commits, 'index.mpk'),
    scipIndex: join(vltDir, 'scip', 'index.mpk'),
    commitPack: (id) => join(commits, 'packs', `${safeName(id, 'commit pack id')}.mpk`),
    blobRecord(blob, extractorVersion, language) {
      const id = objectId(blob, 'blob')
      return join(objects, versionDir(extractorVersion), id.slice(0, 2), `${id.slice(2)}.${safeName(language, 'language')}.mpk`)
    },
    blobPacks: (extractorVersion) => join(objects, versionDir(extractorVersion), 'packs'),
    treeDir,
    treeManifest: (treeHash) => join(treeDir(treeHash), 'manifest.mpk'),
    treeRecord: (treeHash, name) => join(treeDir(treeHash), `${safeName(name, 'record name')}.mpk`),
  }
}

function versionDir(extractorVersion: number): string {
  if (!Number.isInteger(extractorVersion) || extractorVersion < 0) throw new Error(`invalid extractor version: ${extractorVersion}`)
  return String(extractorVersion)
}

function objectId(id: string, what: string): string {
  if (!OBJECT_ID.test(id)) throw new Error(`invalid git ${what} hash: ${JSON.stringify(id)}`)
  return id
}

function safeName(name: string, what: string): string {
  if (!NAME.test(name)) throw new Error(`invalid ${what}: ${JSON.stringify(name)}`)
  return name
}

/**
 * `.vlt/.gitignore`: caches are rebuilt from git objects and never committed; threads/ is the one
 * shared part. The file ignores itself too, so that indexing leaves `git status` clean.
 */
export const GITIGNORE = `# Written by git-vlt. Everything here is a cache rebuilt from git objects,
# except threads/, which is meant to be committed.
*
!threads/
!threads/**
`

/**
 * Creates `.vlt/` and its .gitignore (rewritten only when it differs, so a no-op run writes nothing;
 * skipped in a `.vlt/` that cannot be written, which queries read as it is: see fault.ts).
 */
export async function ensureVltDir(vltDir: string): Promise<VltPaths> {
  const paths = vltPaths(vltDir)
  ensureDirSync(vltDir)
  const current = (await readFileConfined(paths.gitignore))?.toString('utf8')
  if (current !== GITIGNORE) {
    await unlessUnwritable(async () => {
      // A run killed while writing it left its temp file; no lock guards this write, so no lock recovery clears it.
      await sweepTempFilesOf(paths.gitignore)
      await writeFileAtomic(paths.gitignore, Buffer.from(GITIGNORE))
    })
  }
  return paths
}
