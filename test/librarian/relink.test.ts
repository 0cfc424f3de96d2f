import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Desk } from '../../src/core/librarian/desk.js'
import { relinked } from '../../src/core/librarian/relink.js'
import { writableShelves } from '../../src/core/librarian/shelves.js'

describe('links follow a note the Librarian moves', () => {
  it('rewrites wikilinks, markdown links and reference definitions to the moved note, and its own relative links', () => {
    const notes = [
      {
        path: 'notes/a.md',
        text: [
          '---',
          'see: "[front](b.md)"',
          '---',
          '# A',
          'See [B](b.md#usage "title"), [[b]], ![[b#Usage|the usage]], [B bare](b) and [spaced](<b.md>).',
          'Unrelated: [C](sub/c.md), [[c]], [web](https://example.com/b.md), `[code](b.md)`.',
          '```',
          '[fenced](b.md)',
          '```',
          '[ref]: ./b.md#top',
          '',
        ].join('\n'),
      },
      { path: 'notes/sub/c.md', text: '# C\n[B](../b.md) and [[notes/b]] and [root](/notes/b.md)\n' },
      // The note after its move: its links were written from notes/.
      { path: 'notes/archive/b2.md', text: '# B\n[A](a.md), ![pic](img/p.png), [self](b.md#x), [[a]], [out](../../README.md)\n' },
    ]
    const changed = Object.fromEntries(relinked(notes, 'notes/b.md', 'notes/archive/b2.md').map((note) => [note.path, note]))
    assert.deepEqual(Object.keys(changed).sort(), ['notes/a.md', 'notes/archive/b2.md', 'notes/sub/c.md'])
    assert.equal(
      changed['notes/a.md']!.text,
      notes[0]!.text
        .replace('[B](b.md#usage "title"), [[b]], ![[b#Usage|the usage]], [B bare](b) and [spaced](<b.md>)', '[B](archive/b2.md#usage "title"), [[b2]], ![[b2#Usage|the usage]], [B bare](archive/b2) and [spaced](<archive/b2.md>)')
        .replace('[ref]: ./b.md#top', '[ref]: archive/b2.md#top'),
    )
    assert.equal(changed['notes/a.md']!.links, 6)
    assert.equal(changed['notes/sub/c.md']!.text, '# C\n[B](../archive/b2.md) and [[b2]] and [root](/notes/archive/b2.md)\n')
    assert.equal(changed['notes/archive/b2.md']!.text, '# B\n[A](../a.md), ![pic](../img/p.png), [self](b2.md#x), [[a]], [out](../../README.md)\n')
  })

  it('keeps a wikilink that still finds the note, and names it by a longer path where its name alone is taken', () => {
    const notes = [
      { path: 'notes/a.md', text: '[[b]] [[x]]\n' },
      { path: 'notes/archive/b.md', text: '# moved, same name\n' },
      { path: 'notes/y/x.md', text: '# another x\n' },
      { path: 'notes/z/x.md', text: '# the moved x\n' },
    ]
    assert.deepEqual(relinked(notes.slice(0, 2), 'notes/b.md', 'notes/archive/b.md').map((note) => note.text), [])
    // notes/x.md moved to notes/z/x.md: [[x]] would now find notes/y/x.md (the shorter path) first.
    const moved = [{ path: 'notes/a.md', text: '[[x]]\n' }, notes[2]!, notes[3]!]
    assert.deepEqual(relinked(moved, 'notes/x.md', 'notes/z/x.md').map((note) => note.text), ['[[z/x]]\n'])
  })

  it('moves the note and rewrites the links of the notes in the folders on disk, leaving other bytes alone', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'librarian-relink-')))
    try {
      const files: Record<string, string> = {
        'notes/a.md': '# A\r\nSee [B](b.md).\r\nAPI_KEY=sk-live-0123456789abcdef0123456789abcdef\r\n',
        'notes/b.md': '# B\n[A](a.md)\n',
        'README.md': 'Outside the folders: [B](notes/b.md)\n',
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      const desk = new Desk(root, join(root, '.vlt'), writableShelves(root, ['notes']))
      await desk.readNote('notes/a.md')
      const { moved, relinked: changed } = await desk.moveNote('notes/b.md', 'notes/old/b.md')
      assert.deepEqual([moved.action, moved.from, moved.path], ['move', 'notes/b.md', 'notes/old/b.md'])
      assert.deepEqual(changed.sort(), ['notes/a.md', 'notes/old/b.md'])
      assert.equal(readFileSync(join(root, 'notes/a.md'), 'utf8'), files['notes/a.md']!.replace('(b.md)', '(old/b.md)'))
      assert.equal(readFileSync(join(root, 'notes/old/b.md'), 'utf8'), '# B\n[A](../a.md)\n')
      assert.equal(readFileSync(join(root, 'README.md'), 'utf8'), files['README.md'], 'a file outside the folders is never written')
      assert.deepEqual(desk.writes.map((w) => [w.action, w.path, w.relinked]), [['move', 'notes/old/b.md', undefined], ['update', 'notes/a.md', 1], ['update', 'notes/old/b.md', 1]])
      // The model's copy of a.md has the old link: it must read it again before writing it.
      await assert.rejects(desk.writeNote('notes/a.md', '# A\nSee [B](b.md).\n'), /read it with read_note first/)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
