import { openQueryContext, type QueryContext } from '../../src/core/query/context.js'
import { createGitRepo, type GitFixture } from './git-fixture.js'

/** A repository of `files`, committed and indexed once for the enclosing `describe` block. */
export function indexedRepo(files: Record<string, string>): { readonly repo: GitFixture; readonly qctx: QueryContext } {
  const fixture = {} as { repo: GitFixture; qctx: QueryContext }
  before(async () => {
    fixture.repo = createGitRepo({ files })
    fixture.qctx = await openQueryContext(fixture.repo.dir, { warn: () => {} })
  })
  after(() => fixture.repo?.cleanup())
  return fixture
}
