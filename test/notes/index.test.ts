import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UsageError } from '../../src/core/errors.js'
import { findNotes, openNotes, readNote, searchNotes } from '../../src/core/notes/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

const FILES = {
  'README.md': '# Project\n\nSee the [storage design](docs/adr/0001-storage.md#layout) and [[Glossary]].\n',
  'docs/adr/0001-storage.md': '---\ntitle: Storage design\ntags: [adr, storage]\naliases: [Records ADR]\n---\n# Storage design\n\nWe keep records checksummed.\n\n## Layout\n\nObjects fan out by two hex digits.\n',
  'docs/glossary.md': '# Glossary\n\n## Blob\n\nA file\'s content, addressed by hash. Related: [[Records ADR#Layout]].\n',
  'docs/deploy.md': '# Deploy\n\nShip it on Fridays, then check the storage dashboard. #ops/release\n',
  'src/main.ts': 'export const storage = 1\n',
}

describe('notes index on a git repository', function () {
  this.timeout(30_000)
  let repo: GitFixture
  let vault: string
  before(() => {
    repo = createGitRepo({ files: FILES })
    vault = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-vault-')))
    mkdirSync(join(vault, 'ideas'))
    mkdirSync(join(vault, '.obsidian'))
    writeFileSync(join(vault, 'ideas', 'caching.md'), '---\ntags: idea\n---\n# Caching\n\nCache blob reads; see [[Glossary#Blob]].\n')
    writeFileSync(join(vault, '.obsidian', 'workspace.md'), '# never indexed\n')
  })
  after(() => {
    repo.cleanup()
    rmSync(vault, { recursive: true, force: true })
  })

  it('indexes tracked markdown only, and resolves links into backlinks', async () => {
    const notes = await openNotes(repo.dir)
    assert.deepEqual(notes.notes.map((note) => note.path), ['README.md', 'docs/adr/0001-storage.md', 'docs/deploy.md', 'docs/glossary.md'])
    assert.equal(notes.freshness.parsed, 4)
    const readme = notes.note('README.md')!
    assert.deepEqual(readme.resolved, ['docs/adr/0001-storage.md', 'docs/glossary.md'])
    // The alias "Records ADR" resolves the glossary's wikilink to the ADR.
    assert.deepEqual(notes.backlinks('docs/adr/0001-storage.md'), [
      { path: 'README.md', line: 3, anchor: 'layout', text: 'storage design' },
      { path: 'docs/glossary.md', line: 5, anchor: 'Layout', text: '' },
    ])
  })

  it('reads a note with front matter, headings, links and backlinks', async () => {
    const note = await readNote(repo.dir, 'docs/adr/0001-storage.md')
    assert.equal(note.title, 'Storage design')
    assert.deepEqual(note.tags, ['adr', 'storage'])
    assert.deepEqual(note.frontMatter, { title: 'Storage design', tags: ['adr', 'storage'], aliases: ['Records ADR'] })
    assert.deepEqual(note.headings, [{ level: 1, text: 'Storage design', line: 6 }, { level: 2, text: 'Layout', line: 10 }])
    assert.deepEqual(note.backlinks.map((link) => link.path), ['README.md', 'docs/glossary.md'])
    assert.equal(note.content, FILES['docs/adr/0001-storage.md'])
    const glossary = await readNote(repo.dir, join(repo.dir, 'docs', 'glossary.md'))
    assert.deepEqual(glossary.links, [{ kind: 'wiki', target: 'Records ADR', anchor: 'Layout', text: '', line: 5, resolved: 'docs/adr/0001-storage.md' }])
  })

  it('ranks a note whose title matches above one mentioning the word once, with exact sections', async () => {
    const found = await findNotes(repo.dir, 'storage')
    assert.deepEqual(found.results.map((hit) => [hit.path, hit.heading, hit.startLine, hit.endLine]), [
      ['docs/adr/0001-storage.md', 'Storage design', 6, 8],
      ['docs/adr/0001-storage.md', 'Storage design > Layout', 10, 12],
      ['README.md', 'Project', 1, 3],
      ['docs/deploy.md', 'Deploy', 1, 3],
    ])
    assert.equal(found.results[0]!.snippet, 'We keep records checksummed.')
    assert.deepEqual(found.results[0]!.tags, ['adr', 'storage'])
    assert.ok(found.results[1]!.score > found.results[2]!.score, 'the title counts in every section of the note')
    assert.deepEqual((await findNotes(repo.dir, 'storage', { tag: 'ops' })).results.map((hit) => hit.path), ['docs/deploy.md'])
    assert.deepEqual((await findNotes(repo.dir, 'kubernetes')).results, [])
  })

  it('re-processes only the edited note, and picks up uncommitted and untracked notes', async () => {
    repo.write({ 'docs/deploy.md': '# Deploy\n\nShip on Tuesdays with a canary.\n' })
    const edited = await openNotes(repo.dir)
    assert.deepEqual([edited.freshness.parsed, edited.freshness.reused, edited.freshness.dirty], [1, 0, 1])
    assert.deepEqual((await findNotes(repo.dir, 'canary')).results.map((hit) => hit.path), ['docs/deploy.md'])
    const again = await openNotes(repo.dir)
    assert.deepEqual([again.freshness.key, again.freshness.parsed], [edited.freshness.key, 0])

    repo.write({ 'notes/draft.md': '# Draft\n\nLinks to [[deploy]].\n' })
    const drafted = await openNotes(repo.dir)
    assert.equal(drafted.freshness.parsed, 1)
    assert.deepEqual(drafted.backlinks('docs/deploy.md'), [{ path: 'notes/draft.md', line: 3, anchor: '', text: '' }])

    // Committing changes no content: every artifact is reused by hash, nothing is parsed.
    repo.commit('edit')
    const committed = await openNotes(repo.dir)
    assert.deepEqual([committed.freshness.parsed, committed.freshness.dirty, committed.notes.length], [0, 0, 5])
  })

  it('indexes an extra folder outside the repository, hashed from disk, hidden folders skipped', async () => {
    const options = { config: { folders: [vault] } }
    const notes = await openNotes(repo.dir, options)
    const path = `${vault}/ideas/caching.md`
    assert.deepEqual(notes.notes.map((note) => note.path).filter((p) => p.startsWith(vault)), [path])
    assert.deepEqual(notes.note(path)!.resolved, ['docs/glossary.md'])
    assert.deepEqual(notes.backlinks('docs/glossary.md').map((link) => link.path), [path, 'README.md'])
    const hits = await findNotes(repo.dir, 'cache blob reads', options)
    assert.deepEqual(hits.results.map((hit) => [hit.path, hit.heading, hit.tags]), [[path, 'Caching', ['idea']], ['docs/glossary.md', 'Glossary > Blob', []]])
    assert.equal((await readNote(repo.dir, path, options)).title, 'Caching')

    writeFileSync(join(vault, 'ideas', 'caching.md'), '# Caching\n\nMemoize stems.\n')
    const changed = await openNotes(repo.dir, options)
    assert.deepEqual([changed.freshness.parsed, changed.note(path)!.tags], [1, []])
  })

  it('refuses paths that leave the repository or the notes folders', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'vlt-outside-')))
    writeFileSync(join(outside, 'secret.md'), '# secret\n')
    symlinkSync(outside, join(repo.dir, 'docs', 'escape'))
    try {
      const refused = async (path: string, message: RegExp) => {
        await assert.rejects(readNote(repo.dir, path), (error: Error) => error instanceof UsageError && error.exitCode === 2 && message.test(error.message))
      }
      await refused('../secret.md', /'\.\.' is not allowed/)
      await refused('docs/../../secret.md', /'\.\.' is not allowed/)
      await refused(join(outside, 'secret.md'), /outside the repository and the notes folders/)
      await refused('docs/escape/secret.md', /leads outside .* through a symbolic link/)
      await refused('src/main.ts', /no note at src\/main\.ts/)
    } finally {
      rmSync(outside, { recursive: true, force: true })
      rmSync(join(repo.dir, 'docs', 'escape'))
    }
  })

  it('returns retrieval results in the oracle shape (seed 000 RetrievalResult)', async () => {
    const results = await searchNotes(repo.dir, 'records checksummed', { limit: 2 })
    assert.equal(results.length, 2)
    const [top] = results
    assert.deepEqual(top, {
      sourceType: 'vault',
      sourcePath: 'docs/adr/0001-storage.md:6',
      retrievalMethod: 'bm25',
      score: 1,
      content: '# Storage design\n\nWe keep records checksummed.',
      tokenCount: 12,
      metadata: {
        note_path: 'docs/adr/0001-storage.md',
        title: 'Storage design',
        snippet: 'We keep records checksummed.',
        updated: null,
        heading: 'Storage design',
        start_line: 6,
        end_line: 8,
        tags: ['adr', 'storage'],
        methods: ['bm25'],
      },
    })
    assert.ok(results[1]!.score > 0 && results[1]!.score < 1)
  })
})
