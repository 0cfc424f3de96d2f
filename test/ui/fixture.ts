/**
 * The repository the browser tests and the ui bench serve: the oracle's fixture (code with history,
 * a note) plus a thread whose entry an answer can cite, and a note and an entry holding markup that
 * must never run in the page.
 */
import { appendEntry, createThread } from '../../src/core/threads/index.js'
import type { GitFixture } from '../helpers/git-fixture.js'
import { createOracleRepo } from '../oracle/fixture.js'

/** Sets window.__vltInjected if it ever runs. */
export const HOSTILE_MARKUP = '<script>window.__vltInjected = 1</script><img src="x" onerror="window.__vltInjected = 2"><a href="javascript:window.__vltInjected = 3">click</a>'

export interface UiFixture {
  repo: GitFixture
  thread: string
  entryId: string
}

export async function createUiRepo(): Promise<UiFixture> {
  const { repo } = createOracleRepo()
  repo.write({ 'docs/hostile.md': `# Hostile note\n\n${HOSTILE_MARKUP}\n\n[a link](javascript:alert(1))\n` })
  const vltDir = `${repo.dir}/.vlt`
  const thread = 'lock-timeouts'
  await createThread(vltDir, { name: thread, title: 'Lock timeouts' })
  await appendEntry(vltDir, thread, { type: 'thought', author: 'alice', text: `Markup in an entry stays text: ${HOSTILE_MARKUP}` })
  const entry = await appendEntry(vltDir, thread, { type: 'decision', author: 'alice', text: 'We raise the lock timeout to 30 s: NFS mounts release locks slowly.' })
  repo.commit('Add the hostile note and the lock-timeouts thread')
  return { repo, thread, entryId: entry.id }
}
