/**
 * Tests that exercise the cited code: test files referencing a cited definition's name, shown
 * at the test chunk holding the first reference (what a test asserts is evidence of behaviour).
 */
import type { QueryContext } from '../query/context.js'
import { isTestPath } from '../query/search/index.js'
import { makeSource, type Candidate } from './candidate.js'
import type { Ranked } from './rank.js'

const CITED_DEFINITIONS = 3
const TESTS_PER_DEFINITION = 2

export function testCandidates(qctx: QueryContext, ranked: readonly Ranked[]): Candidate[] {
  const out: Candidate[] = []
  const seen = new Set<string>()
  const cited = ranked.filter(({ candidate }) => candidate.source.sourceType === 'code' && typeof candidate.source.metadata.name === 'string' && candidate.source.metadata.name !== '' && !isTestPath(candidate.range!.path))
  for (const { candidate } of cited.slice(0, CITED_DEFINITIONS)) {
    const name = candidate.source.metadata.name as string
    const tests = qctx.aggregates.symbols.referencesTo(name).filter((posting) => isTestPath(posting.path)).slice(0, TESTS_PER_DEFINITION)
    for (const test of tests) {
      const artifact = qctx.artifact(test.path)
      const ref = artifact?.references.find((r) => r.name === name)
      const holding = ref ? artifact!.chunks.filter((c) => c.startLine <= ref.line && ref.line <= c.endLine) : []
      // The test function rather than the whole file, when the chunker made one.
      const chunk = holding.find((c) => c.kind !== 'module') ?? holding[0]
      if (!chunk) continue
      const key = `${test.path}:${chunk.startLine}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push({
        source: makeSource('code', `${test.path}:${chunk.startLine}-${chunk.endLine}`, 'graph', candidate.source.score * 0.8, chunk.body, {
          path: test.path,
          startLine: chunk.startLine,
          endLine: chunk.endLine,
          name: chunk.name,
          qualifiedName: chunk.qualifiedName,
          kind: chunk.kind,
          exercises: candidate.source.sourcePath,
          role: 'test',
        }),
        path: 'code:tests',
        relevance: candidate.relevance,
        exact: false,
        range: { path: test.path, start: chunk.startLine, end: chunk.endLine },
      })
    }
  }
  return out
}
