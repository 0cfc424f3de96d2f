import { strict as assert } from 'node:assert'
import { MAX_SECTION_CHARS, parseFrontMatter, parseNote } from '../../src/core/notes/index.js'

const NOTE = `---
title: Storage design
tags: [storage, "adr"]
aliases:
  - Storage ADR
  - Record format
status: accepted # reviewed in March
owners:
  lead: ana
summary: |
  Records are checksummed.
  Rebuilt when damaged.
---
Intro text before any heading, see [[Index core|the index]].

# Storage
Why records: [format](docs/format.md#header) and [spec](<specs/record spec.md>).

## Layout
Objects live under \`[[not-a-link]]\` paths. #design

\`\`\`sh
# not a heading
see [[Inside Fence]]
\`\`\`

### Fan-out
Two hex digits, like [git][objects].

[objects]: ../git/objects.md
Setext heading
--------------
Links out: [site](https://example.com/a.md), [mail](mailto:x@y.z), [[Other#Part]], ![[diagram.png]].
`

describe('notes markdown', () => {
  const note = parseNote(NOTE)

  it('reads the front matter: title, tags, aliases, nested maps, block scalars and comments', () => {
    assert.equal(note.title, 'Storage design')
    assert.deepEqual(note.aliases, ['Storage ADR', 'Record format'])
    assert.deepEqual(note.frontMatter, {
      title: 'Storage design',
      tags: ['storage', 'adr'],
      aliases: ['Storage ADR', 'Record format'],
      status: 'accepted',
      owners: { lead: 'ana' },
      summary: 'Records are checksummed.\nRebuilt when damaged.',
    })
    // Front-matter tags first, then inline tags outside code.
    assert.deepEqual(note.tags, ['storage', 'adr', 'design'])
    assert.deepEqual(note.problems, [])
  })

  it('finds ATX and setext headings, none inside code fences', () => {
    assert.deepEqual(note.headings, [
      { level: 1, text: 'Storage', line: 16 },
      { level: 2, text: 'Layout', line: 19 },
      { level: 3, text: 'Fan-out', line: 27 },
      { level: 2, text: 'Setext heading', line: 31 },
    ])
  })

  it('cuts sections at headings with exact line ranges and heading paths', () => {
    assert.deepEqual(note.sections, [
      { heading: 'Storage design', name: 'Storage design', startLine: 14, endLine: 14 },
      { heading: 'Storage', name: 'Storage', startLine: 16, endLine: 17 },
      { heading: 'Storage > Layout', name: 'Layout', startLine: 19, endLine: 25 },
      { heading: 'Storage > Layout > Fan-out', name: 'Fan-out', startLine: 27, endLine: 30 },
      { heading: 'Storage > Setext heading', name: 'Setext heading', startLine: 31, endLine: 33 },
    ])
  })

  it('collects wikilinks, markdown links and reference definitions, not external links, code spans or fences', () => {
    assert.deepEqual(note.links, [
      { kind: 'wiki', target: 'Index core', anchor: '', text: 'the index', line: 14 },
      { kind: 'markdown', target: 'docs/format.md', anchor: 'header', text: 'format', line: 17 },
      { kind: 'markdown', target: 'specs/record spec.md', anchor: '', text: 'spec', line: 17 },
      { kind: 'markdown', target: '../git/objects.md', anchor: '', text: 'objects', line: 30 },
      { kind: 'wiki', target: 'Other', anchor: 'Part', text: '', line: 33 },
      { kind: 'wiki', target: 'diagram.png', anchor: '', text: '', line: 33 },
    ])
  })

  it('puts the title before headings that are not level 1, and uses no title when there is none', () => {
    const titled = parseNote('---\ntitle: Ops\n---\n## Deploy\ntext\n### Rollback\nmore\n')
    assert.deepEqual(titled.sections.map((s) => [s.heading, s.startLine, s.endLine]), [['Ops > Deploy', 4, 5], ['Ops > Deploy > Rollback', 6, 7]])
    const untitled = parseNote('plain words\n\n## Part\nbody\n')
    assert.equal(untitled.title, null)
    assert.deepEqual(untitled.sections.map((s) => [s.heading, s.startLine, s.endLine]), [['', 1, 1], ['Part', 3, 4]])
  })

  it('bounds long sections at paragraph breaks and never cuts a code fence', () => {
    const paragraph = (word: string) => `${word} `.repeat(150).trim() // ~1000 characters on one line
    const fence = ['```', ...Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(60)}`), '```'] // ~2800 characters
    const lines = ['# Long', paragraph('alpha'), '', paragraph('beta'), '', paragraph('gamma'), '', ...fence, '', paragraph('delta')]
    const sections = parseNote(lines.join('\n')).sections
    assert.deepEqual(sections.map((s) => [s.heading, s.startLine, s.endLine]), [
      ['Long', 1, 4], // heading + alpha + blank + beta: under the limit
      ['Long', 6, 6], // gamma alone: adding the fence would pass the limit
      ['Long', 8, 49], // the fence, whole although longer than the limit
      ['Long', 51, 51],
    ])
    const fenceChars = fence.join('\n').length
    assert.ok(fenceChars > MAX_SECTION_CHARS, `the fixture's fence (${fenceChars}) must exceed the limit`)
  })

  it('reports front matter it cannot read instead of failing, and ignores a dash block that is not closed', () => {
    const odd = parseFrontMatter(['---', 'title: x', 'just words', '---', 'body'])
    assert.deepEqual(odd.data, { title: 'x' })
    assert.equal(odd.endLine, 4)
    assert.deepEqual(odd.problems, ['front matter line 3 is not "key: value": just words'])
    assert.deepEqual(parseFrontMatter(['---', 'title: x']), { data: {}, endLine: 0, problems: [] })
    assert.deepEqual(parseNote('---\ntags: ops, deploy\nalias: Runbook\n---\n').tags, ['ops', 'deploy'])
    assert.deepEqual(parseNote('---\ntags: ops, deploy\nalias: Runbook\n---\n').aliases, ['Runbook'])
  })
})
