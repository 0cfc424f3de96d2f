/**
 * Real corpora for benchmarks, each committed into its own git repository under bench/.work/.
 * Built once, reused by later runs (delete the folder to rebuild).
 */
import { execFileSync } from 'node:child_process'
import { closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, readSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const WORK = join(dirname(fileURLToPath(import.meta.url)), '.work')

const LINUX_TARBALL = '/usr/src/linux-source-6.1.tar.xz'
const LINUX_TREE = '/tmp/linux/linux-source-6.1'
const DJANGO = '/usr/lib/python3/dist-packages/django'

export type CorpusName = 'linux10k' | 'linux' | 'django'

export const CORPORA: Record<CorpusName, { describe: string; build: (dir: string) => void }> = {
  linux10k: {
    describe: 'the first 10,000 .c files (by path) of Debian linux-source-6.1',
    build(dir) {
      const files = walk(linuxTree()).filter((path) => path.endsWith('.c')).sort().slice(0, 10_000)
      for (const file of files) {
        const target = join(dir, relative(LINUX_TREE, file))
        mkdirSync(dirname(target), { recursive: true })
        cpSync(file, target)
      }
    },
  },
  linux: {
    describe: 'every file of Debian linux-source-6.1 (the whole kernel tree, one commit)',
    build(dir) {
      cpSync(linuxTree(), dir, { recursive: true })
      // Debian's packaging appends `/*` (ignore everything at the top) to the kernel's .gitignore.
      const ignore = join(dir, '.gitignore')
      writeFileSync(ignore, readFileSync(ignore, 'utf8').replace(/\n#\n# Debian packaging[^]*$/, '\n'))
    },
  },
  django: {
    describe: "Debian python3-django's django package",
    build(dir) {
      if (!existsSync(DJANGO)) throw new Error(`missing ${DJANGO}: apt-get install python3-django`)
      cpSync(DJANGO, join(dir, 'django'), { recursive: true, filter: (src) => !src.includes('__pycache__') })
    },
  },
}

/** Debian's kernel source, unpacked once under /tmp. */
function linuxTree(): string {
  if (!existsSync(LINUX_TREE)) {
    if (!existsSync(LINUX_TARBALL)) throw new Error(`missing ${LINUX_TARBALL}: apt-get install linux-source-6.1`)
    mkdirSync('/tmp/linux', { recursive: true })
    execFileSync('tar', ['-xJf', LINUX_TARBALL, '-C', '/tmp/linux'], { stdio: 'inherit' })
  }
  return LINUX_TREE
}

/** The corpus repository's path, creating and committing it on first use. */
export function corpus(name: CorpusName): string {
  const dir = join(WORK, name)
  if (existsSync(join(dir, '.git'))) return dir
  mkdirSync(dir, { recursive: true })
  process.stderr.write(`building corpus ${name}: ${CORPORA[name].describe}…\n`)
  CORPORA[name].build(dir)
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', `corpus: ${CORPORA[name].describe}`)
  return dir
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  })
}

/** Every file under `dir` (a remote cache's `cas/` holds Linux's 78k records in one folder: no spreading them as arguments). */
function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path, out)
    else if (entry.isFile()) out.push(path)
  }
  return out
}

/**
 * Reads the corpus's git objects and its working tree once, discarding the bytes, so that a cold
 * init (no `.vlt/`) is timed against files in the page cache, as the tree-sitter floor and ctags
 * run after it are: the first init after other large runs (Linux full's 1.5 GB) read its corpus
 * from disk and took 40.9 s where one warm took 33.
 */
export function warmPageCache(dir: string): void {
  const chunk = Buffer.allocUnsafe(1 << 20)
  const readThrough = (path: string): void => {
    const fd = openSync(path, 'r')
    try {
      while (readSync(fd, chunk, 0, chunk.length, null) > 0);
    } finally {
      closeSync(fd)
    }
  }
  for (const file of walk(join(dir, '.git', 'objects'))) readThrough(file)
  // Regular files only: a tracked symbolic link may name a directory, or nothing.
  for (const path of git(dir, 'ls-files', '-z').split('\0')) if (path && lstatSync(join(dir, path)).isFile()) readThrough(join(dir, path))
}

export function directoryBytes(dir: string): number {
  if (!existsSync(dir)) return 0
  let total = 0
  for (const file of walk(dir)) total += statSync(file).size
  return total
}
