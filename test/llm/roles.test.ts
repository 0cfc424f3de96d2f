import { strict as assert } from 'node:assert'
import { parseConfig } from '../../src/core/config/load.js'
import { createLlmClient, roleModel } from '../../src/core/llm/index.js'
import { planLlmRerank } from '../../src/core/query/search/llm-rerank.js'

describe('LLM roles ([llm.models]) and prices ([llm.prices])', () => {
  const config = parseConfig(
    '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "big/answerer"\n' +
      '[llm.models]\nrerank = "small/fast"\nsummarise = "small/fast"\n' +
      '[llm.prices]\n"big/answerer" = { input = 3.0, output = 15.0 }\n',
  )

  it('gives a role its own model, and every other role llm.model', () => {
    assert.deepEqual(config.llm.models, { rerank: 'small/fast', summarise: 'small/fast' })
    assert.equal(roleModel(config.llm, 'rerank'), 'small/fast')
    assert.equal(roleModel(config.llm, 'answer'), 'big/answerer')
    assert.equal(roleModel(config.llm, 'agent'), 'big/answerer')
    assert.equal(roleModel(config.llm, undefined), 'big/answerer')
    assert.equal(createLlmClient(config.llm, { role: 'summarise', env: {} })!.model, 'small/fast')
    assert.equal(createLlmClient(config.llm, { role: 'summarise', model: 'flag/model', env: {} })!.model, 'flag/model', '--model wins')
  })

  it('reranks search results (FR-023) with the rerank role', () => {
    const plan = planLlmRerank(config, { rerank: 'llm' })
    assert.equal(plan?.client?.model, 'small/fast')
  })

  it('reads prices per million tokens and refuses unknown roles and malformed prices', () => {
    assert.deepEqual(config.llm.prices, { 'big/answerer': { input: 3, output: 15 } })
    assert.throws(() => parseConfig('[llm.models]\nplanner = "x"\n'), /unknown key llm\.models\.planner \(expected one of: answer, agent, rerank, summarise, librarian\)/)
    assert.throws(() => parseConfig('[llm.prices]\n"m" = { input = -1, output = 2 }\n'), /llm\.prices\."m"\.input must be a price in US dollars per million tokens/)
    assert.throws(() => parseConfig('[llm.prices]\n"m" = 3\n'), /llm\.prices\."m" must be \{ input = USD, output = USD \}/)
    assert.throws(() => parseConfig('[llm]\nmax_turns = 0\n'), /llm\.max_turns must be an integer from 1 to 100/)
  })
})
