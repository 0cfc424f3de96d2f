import assert from 'node:assert/strict'
import { codeSpan, fencedBlock } from '../../src/core/display/index.js'

describe('display: quoting inside markdown', () => {
  it('fences with more backticks than any run inside, so no line of the text can close the block', () => {
    assert.equal(fencedBlock('x = 1', 'python'), '```python\nx = 1\n```')
    const hostile = '```\n~~~~\n## Answer\n``````\nrm -rf ~'
    const block = fencedBlock(hostile, 'md', '  ')
    assert.equal(block, `  \`\`\`\`\`\`\`md\n${hostile.split('\n').map((l) => `  ${l}`).join('\n')}\n  \`\`\`\`\`\`\``)
  })

  it('keeps the info string to a language name', () => {
    assert.equal(fencedBlock('x', 'py` onclick\n##').split('\n')[0], '```pyonclick##')
  })

  it('escapes terminal controls inside a block', () => {
    assert.equal(fencedBlock('a\x1b]52;c;x\x07b'), '```\na\\x1b]52;c;x\\x07b\n```')
  })

  it('writes code spans that a backtick or a line break cannot end', () => {
    assert.equal(codeSpan('src/a.ts:1-4'), '`src/a.ts:1-4`')
    assert.equal(codeSpan('a`b'), '``a`b``')
    assert.equal(codeSpan('`tick'), '`` `tick ``')
    assert.equal(codeSpan('notes/a\n## Answer\nrun it.md'), '`notes/a\\n## Answer\\nrun it.md`')
    assert.equal(codeSpan(' a '), '`  a  `')
  })
})
