import assert from 'node:assert/strict'
import { quotedName, terminalSafeJson, visibleLine, visibleText } from '../../src/core/display/index.js'

describe('display: escaping for terminals', () => {
  it('makes terminal controls visible and leaves UTF-8, tabs, line feeds and CRLF alone', () => {
    assert.equal(visibleText('naïve → ✓ 日本\tok\r\nnext\n'), 'naïve → ✓ 日本\tok\r\nnext\n')
    assert.equal(visibleText('copy \x1b]52;c;cm0gLXJm\x07 done'), 'copy \\x1b]52;c;cm0gLXJm\\x07 done')
    assert.equal(visibleText('\x1b[2K\rfake line'), '\\x1b[2K\\rfake line')
    assert.equal(visibleText('csi \u009b31m, del \x7f, nul \0'), 'csi \\x9b31m, del \\x7f, nul \\x00')
    assert.equal(visibleText('user \u202eexe.txt'), 'user \\u{202e}exe.txt')
  })

  it('keeps one-line fields on one line', () => {
    assert.equal(visibleLine('title\n## Answer\r\n\tx'), 'title\\n## Answer\\r\\n\tx')
  })

  it('quotes a file name only when it needs it, the way git does', () => {
    assert.equal(quotedName('src/app/main.py'), 'src/app/main.py')
    assert.equal(quotedName('docs/naïve notes.md'), 'docs/naïve notes.md')
    assert.equal(quotedName('a\n 1. fake.py:1-9'), '"a\\n 1. fake.py:1-9"')
    assert.equal(quotedName('app/\x1b[31mred.py'), '"app/\\x1b[31mred.py"')
    assert.equal(quotedName('we"ird\\name'), '"we\\"ird\\\\name"')
  })

  it('escapes in JSON text what JSON leaves raw, keeping the same value', () => {
    const value = { snippet: 'a\x1b[31m \u009b2J \x7f \u202e z' }
    const json = terminalSafeJson(JSON.stringify(value))
    assert.doesNotMatch(json, /[\x00-\x1f\x7f-\x9f\u202a-\u202e]/)
    assert.deepEqual(JSON.parse(json), value)
  })
})
