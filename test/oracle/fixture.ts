import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** A fake OpenAI key in a committed file: it must never reach an LLM request. */
// Random-looking: a run of the alphabet is a placeholder to the secret rules, not a key.
export const FAKE_KEY = 'sk-proj-' + 'Q7vR2mXk9LpT4sWz8NcB1yHj6FdG3aKe5uYo0iMn'

/**
 * A small TypeScript project with history: a lock module, a record store using it, its test, a
 * note, and a commit whose message explains why the lock timeout changed.
 */
export function createOracleRepo(): { repo: GitFixture; timeoutCommit: string } {
  const repo = createGitRepo({
    files: {
      'src/lock.ts': [
        '/** Exclusive locks on the store, so that two writers never interleave. */',
        'export const LOCK_TIMEOUT_MS = 5000',
        '',
        'export function acquireLock(path: string): number {',
        '  const started = Date.now()',
        '  while (Date.now() - started < LOCK_TIMEOUT_MS) {',
        '    if (tryCreate(path)) return Date.now()',
        '  }',
        '  throw new Error(`lock ${path} is busy`)',
        '}',
        '',
        'function tryCreate(path: string): boolean {',
        '  return path.length > 0',
        '}',
        '',
      ].join('\n'),
      'src/store.ts': [
        "import { acquireLock } from './lock.js'",
        '',
        '/** Writes one blob record to the store under the lock. */',
        'export function writeBlobRecord(path: string, record: string): void {',
        '  acquireLock(path)',
        '  persistRecord(path, record)',
        '}',
        '',
        'function persistRecord(path: string, record: string): void {',
        '  console.log(path, record)',
        '}',
        '',
      ].join('\n'),
      'src/client.ts': [
        '/** The endpoint client: base URL and API key for the completion service. */',
        `const API_KEY = "${FAKE_KEY}"`,
        '',
        'export function endpointClient(baseUrl: string): { baseUrl: string; apiKey: string } {',
        '  return { baseUrl, apiKey: API_KEY }',
        '}',
        '',
      ].join('\n'),
      'test/lock.test.ts': [
        "import { acquireLock } from '../src/lock.js'",
        '',
        "it('acquires a free lock', () => {",
        "  if (!acquireLock('/tmp/x')) throw new Error('not acquired')",
        '})',
        '',
      ].join('\n'),
      'docs/storage.md': '# Storage\n\nBlob records are written by the record store, one file per blob, under an exclusive lock.\n',
    },
  })
  repo.write({ 'src/lock.ts': repo.git('show', 'HEAD:src/lock.ts').replace('LOCK_TIMEOUT_MS = 5000', 'LOCK_TIMEOUT_MS = 30000') + '\n' })
  const timeoutCommit = repo.commit('Raise LOCK_TIMEOUT_MS to 30 s\n\nNFS mounts are slow to release locks, so waiting 5 s failed builds on CI.')
  return { repo, timeoutCommit }
}
