import { strict as assert } from 'node:assert'
import type { Query, Tree } from 'web-tree-sitter'
import type { ParsedLanguageId } from '../../src/core/parse/languages.js'
import { tagsQuery } from '../../src/core/parse/tags/query.js'
import { RawMatches } from '../../src/core/parse/tags/raw-matches.js'
import { withTree } from './tags-helpers.js'

type Flat = Array<[number, Array<[string, number, number, number, number]>]>

/** web-tree-sitter's own reading of the matches, as [pattern, [capture, start, end, row, column]…]. */
function official(query: Query, tree: Tree): Flat {
  return query.matches(tree.rootNode).map((match) => [
    match.patternIndex,
    match.captures.map((c) => [c.name, c.node.startIndex, c.node.endIndex, c.node.startPosition.row, c.node.startPosition.column]),
  ])
}

function raw(query: Query, matches: RawMatches): Flat {
  const flat: Flat = []
  for (let m = 0; m < matches.count; m++) {
    const captures: Array<[string, number, number, number, number]> = []
    const first = matches.firstCapture(m)
    for (let k = 0; k < matches.captureCount(m); k++) {
      const c = first + k * RawMatches.CAPTURE_STRIDE
      captures.push([query.captureNames[matches.captureIndex(c)]!, matches.start(c), matches.end(c), matches.row(c), matches.column(c)])
    }
    flat.push([matches.pattern(m), captures])
  }
  return flat
}

// Sources that exercise text predicates (#match?, #not-any-of?, #eq?), non-ASCII text (UTF-16
// indexes) and the nodes import readers walk.
const SOURCES: Array<[ParsedLanguageId, string]> = [
  ['c', [
    '#include "list.h"',
    'static int x __read_mostly;',
    'static int __init café_init(void) { return max_t(int, a, b) + struct_size(p, unsigned); }',
    'struct s { struct list_head list ____cacheline_aligned; int n; };',
    'int f(struct ring *ring) { ring->n = x; return g(ring); } /* “quoted” */',
  ].join('\n')],
  ['typescript', [
    "import { a as b, c } from './m'",
    '/** See {@link Foo#bar} and @throws {Error} */',
    'export class Foo<T> { bar(x: T): number { return b(x) + c.size } }',
    'const héllo = (y: string) => y.length',
  ].join('\n')],
  ['python', 'from os import path as p\n\nclass A:\n    @staticmethod\n    def m(x):\n        return p.join(x, "é")\n'],
  ['ruby', "require 'set'\nclass A\n  class << self\n    def b; Set.new; end\n  end\nend\n"],
]

/** The tags query of `language` and its RawMatches over `source`, for `use`. */
function withMatches(language: ParsedLanguageId, source: string, use: (query: Query, matches: RawMatches, tree: Tree) => void): Promise<void> {
  return withTree(language, source, (tree, grammar) => {
    const query = tagsQuery(grammar, language)
    use(query, new RawMatches(query, tree, source), tree)
  })
}

describe('RawMatches (query matches read from wasm memory)', () => {
  for (const [language, source] of SOURCES) {
    it(`reads the same matches as Query.matches for ${language}, predicates applied`, () =>
      withMatches(language, source, (query, matches, tree) => {
        const expected = official(query, tree)
        assert.ok(expected.length > 3)
        assert.deepEqual(raw(query, matches), expected)
      }))
  }

  it('gives end positions and Node objects identical to web-tree-sitter\'s', () => {
    const [language, source] = SOURCES[1]!
    return withMatches(language, source, (query, matches, tree) => {
      const nodes = query.matches(tree.rootNode).flatMap((m) => m.captures.map((c) => c.node))
      let k = 0
      for (let m = 0; m < matches.count; m++) {
        for (let i = 0; i < matches.captureCount(m); i++, k++) {
          const capture = matches.firstCapture(m) + i * RawMatches.CAPTURE_STRIDE
          const expected = nodes[k]!
          assert.deepEqual(matches.endPosition(capture), expected.endPosition)
          const node = matches.node(capture)!
          assert.equal(node.id, expected.id)
          assert.equal(node.type, expected.type)
        }
      }
      assert.equal(k, nodes.length)
    })
  })
})
