import { strict as assert } from 'node:assert'
import { ExtractiveCompressor } from '../../src/core/conversation/index.js'
import type { Exchange } from '../../src/core/conversation/index.js'

const exchange = (fields: Partial<Exchange>): Exchange => ({
  id: '00000001-aaaa',
  at: '2024-01-01T00:00:00.000Z',
  tool: 'ask_oracle',
  input: {},
  summary: 'answered',
  tokens: 100,
  insights: [],
  symbols: [],
  files: [],
  ...fields,
})

describe('conversation: the extractive compressor', () => {
  it("keeps the locations a folded answer cited, not only its first line, and not those of the evidence it quoted", async () => {
    const answer = [
      '`parse_config` is used in 2 file(s); the uses are listed below. Found 2 code locations, 1 commit, best first. This is the retrieved evidence itself (no language model is configured): read it to confirm the answer.',
      '',
      '## Uses',
      '',
      '- `src/app.py:10-14`',
      '  ```python',
      '  parse_config(text)  # see src/quoted.py:99-100',
      '  ```',
      '- `src/cli.py:3-7`',
      '',
      '## Commits',
      '',
      '- `0123456789ab`',
      '  > Reverts fedcba987654',
    ].join('\n')
    const summary = await new ExtractiveCompressor().compress('', [exchange({ question: 'What calls parse_config?', answer })], 1000)
    for (const cited of ['src/app.py:10-14', 'src/cli.py:3-7', '0123456789ab']) assert.ok(summary.includes(cited), `${cited} lost:\n${summary}`)
    for (const quoted of ['src/quoted.py:99-100', 'fedcba987654']) assert.ok(!summary.includes(quoted), `${quoted} kept:\n${summary}`)
    assert.equal(summary.split('\n').length, 1)
    assert.match(summary, /→ `parse_config` is used in 2 file\(s\); the uses are listed below\. \(cites /, 'the finding, not the note on how to read the evidence')
  })
})
