import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** Identity and clock for fixture commits, and no user or system config (hooks, autocrlf, signing…). */
export const FIXTURE_GIT_ENV = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
}

export interface GitFixture {
  /** Real path of the working tree (of the git dir when bare). */
  dir: string
  /** Runs git in `dir`; returns stdout without the trailing newline. */
  git(...args: string[]): string
  /** Writes files (parent directories created), paths relative to `dir`. */
  write(files: Record<string, string | Buffer>): void
  /** `git add -A` and commit; returns the new commit hash. */
  commit(message?: string): string
  cleanup(): void
}

export interface FixtureOptions {
  bare?: boolean
  /** Written and committed right away. */
  files?: Record<string, string | Buffer>
  /** e.g. ['--object-format=sha256'] */
  initArgs?: string[]
}

/**
 * A throwaway repository on branch `main`. The code under test runs git in this process too, so the
 * process environment is isolated from the user's git config as well.
 */
export function createGitRepo(options: FixtureOptions = {}): GitFixture {
  Object.assign(process.env, { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' })
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-git-')))
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.com', ...args], {
      cwd: dir,
      env: { ...process.env, ...FIXTURE_GIT_ENV },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).replace(/\n$/, '')
  git('init', '-q', '-b', 'main', ...(options.bare ? ['--bare'] : []), ...(options.initArgs ?? []), '.')
  const fixture: GitFixture = {
    dir,
    git,
    write(files) {
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true })
        writeFileSync(join(dir, path), content)
      }
    },
    commit(message = 'commit') {
      git('add', '-A')
      git('commit', '-q', '--allow-empty', '-m', message)
      return git('rev-parse', 'HEAD')
    },
    cleanup() {
      removeTree(dir)
    },
  }
  if (options.files) {
    fixture.write(options.files)
    fixture.commit('initial')
  }
  return fixture
}

/**
 * rmSync, again as long as a directory is found non-empty: a process that wrote into the
 * repository (a background indexer, a daemon) may still be finishing. rmSync's own maxRetries
 * retries only the rmdir of the directory, never removing what appeared in it meanwhile.
 */
function removeTree(dir: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true })
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || attempt === 50) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
    }
  }
}

/** A fresh repository holding `origin`'s main branch checked out: another machine's clone, with no `.vlt/` of its own. */
export function cloneGitRepo(origin: GitFixture): GitFixture {
  const fixture = createGitRepo()
  fixture.git('fetch', '-q', origin.dir, 'main')
  fixture.git('reset', '-q', '--hard', 'FETCH_HEAD')
  return fixture
}
