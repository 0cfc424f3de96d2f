import { strict as assert } from 'node:assert'
import { UsageError } from '../../src/core/errors.js'
import { entryIdTime, newEntryId } from '../../src/core/threads/entry-id.js'
import { parseThread, renderEntry, renderHeader, validateEntryText, validateThreadName, type Entry } from '../../src/core/threads/format.js'

const entry = (id: string, text: string, type: Entry['type'] = 'thought'): Entry => ({ id, timestamp: '2024-05-01T10:00:00.000Z', author: 'Alice Smith', type, text })

describe('thread file format', () => {
  it('renders a readable file and parses it back exactly', () => {
    const header = { title: 'Auth redesign', created: '2024-05-01T09:00:00.000Z', description: 'Moving sessions to JWT.' }
    const entries = [entry('0lvn3k2a8-5f0c1e9a', 'We keep refresh tokens server-side.\n\n```ts\nconst a = 1\n```', 'decision'), entry('0lvn3k2b0-00000001', 'Try PASETO?')]
    const source = renderHeader(header) + entries.map(renderEntry).join('')
    assert.equal(
      source,
      [
        '# Auth redesign',
        '',
        'Moving sessions to JWT.',
        '',
        '<!-- vlt:thread created=2024-05-01T09:00:00.000Z -->',
        '',
        '### decision · Alice Smith · 2024-05-01T10:00:00.000Z <!-- vlt:entry 0lvn3k2a8-5f0c1e9a -->',
        'We keep refresh tokens server-side.',
        '',
        '```ts',
        'const a = 1',
        '```',
        '',
        `<!-- vlt:end 0lvn3k2a8-5f0c1e9a ${source.match(/vlt:end 0lvn3k2a8-5f0c1e9a ([0-9a-f]{8})/)![1]} -->`,
        '',
        '### thought · Alice Smith · 2024-05-01T10:00:00.000Z <!-- vlt:entry 0lvn3k2b0-00000001 -->',
        'Try PASETO?',
        '',
        `<!-- vlt:end 0lvn3k2b0-00000001 ${source.match(/vlt:end 0lvn3k2b0-00000001 ([0-9a-f]{8})/)![1]} -->`,
        '',
      ].join('\n'),
    )
    assert.deepEqual(parseThread(source, 't.md'), { ...header, entries, problems: [], broken: [] })
  })

  it('sorts entries by id, drops duplicates, keeps hand edits, reports stray text and entries whose markers a splice broke', () => {
    const late = entry('0lvn3k2b0-00000002', 'later')
    const early = entry('0lvn3k2a0-00000001', 'earlier')
    const edited = renderEntry(entry('0lvn3k2c0-00000003', 'original')).replace('original\n', 'changed by hand\n')
    const source = `${renderHeader({ title: 'T', created: '2024-05-01T09:00:00.000Z', description: '' })}${renderEntry(late)}${renderEntry(early)}${renderEntry(late)}\nstray words\n${edited}`
    const parsed = parseThread(source, 't.md')
    assert.deepEqual(parsed.entries.map((e) => [e.id, e.text]), [
      ['0lvn3k2a0-00000001', 'earlier'],
      ['0lvn3k2b0-00000002', 'later'],
      ['0lvn3k2c0-00000003', 'changed by hand'],
    ])
    assert.deepEqual(parsed.problems, ['t.md:20: text outside any entry ignored: "stray words"'])
    assert.deepEqual(parsed.broken, [])
  })

  it('flags entries interrupted by another entry before their own end marker, keeping the hash of their displaced end', () => {
    const a = renderEntry(entry('0lvn3k2a0-00000001', 'alpha\n\nshared\nlines\nhere\nend'))
    const b = renderEntry(entry('0lvn3k2b0-00000002', 'beta\n\nshared\nlines\nhere\nend'))
    const hashOf = (block: string) => block.match(/vlt:end \S+ ([0-9a-f]{8})/)![1]
    // What git's union merge makes of the two blocks: a's start, b's start, their shared lines once, then both ends.
    const spliced = [a.split('\n').slice(0, 3), b.split('\n').slice(1, 3), ['', 'shared', 'lines', 'here', 'end', ''], [a.split('\n')[9]], b.split('\n').slice(9)].flat().join('\n')
    const parsed = parseThread(`# T\n${spliced}`, 't.md')
    assert.deepEqual(parsed.broken, [
      { id: '0lvn3k2a0-00000001', hash: hashOf(a) },
      { id: '0lvn3k2b0-00000002', hash: hashOf(b) },
    ])
    assert.deepEqual(parsed.entries.map((e) => e.text), ['alpha', 'beta\n\nshared\nlines\nhere\nend'])
  })

  it('refuses names that are not slugs, and texts that are empty or contain markers', () => {
    for (const bad of ['', 'Auth', '../x', 'a/b', '-a', 'a-', 'a_b', 'a.md', 'x'.repeat(65)]) {
      assert.throws(() => validateThreadName(bad), UsageError, bad)
    }
    assert.equal(validateThreadName('auth-redesign-2'), 'auth-redesign-2')
    assert.throws(() => validateEntryText(' \n\n'), /the entry text is empty/)
    assert.throws(() => validateEntryText('a\n<!-- vlt:end x y -->'), /reserved for thread markers/)
    assert.equal(validateEntryText('\n\n  hello  \r\nworld\t\n\n'), '  hello\nworld')
  })

  it('makes ids that sort by time and strictly increase within a file', () => {
    const a = newEntryId(1_714_557_600_000)
    assert.match(a, /^[0-9a-z]{9}-[0-9a-f]{8}$/)
    assert.equal(entryIdTime(a), 1_714_557_600_000)
    const b = newEntryId(1_714_557_600_000, a)
    assert.equal(entryIdTime(b), 1_714_557_600_001)
    assert.ok(b > a)
    assert.equal(entryIdTime(newEntryId(1_000, b)), 1_714_557_600_002, 'a clock stepping back still yields a later id')
  })
})
