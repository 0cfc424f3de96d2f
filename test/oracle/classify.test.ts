import { strict as assert } from 'node:assert'
import { classifyQuestion, withDefinedNames } from '../../src/core/oracle/classify.js'

describe('oracle question classification', () => {
  const cases: Array<[string, string, string | null, string]> = [
    ['where is openQueryContext defined', 'definition', 'openQueryContext', 'openQueryContext'],
    ['Where is `UserService.login` defined?', 'definition', 'UserService.login', '`UserService.login`'],
    ['definition of parse_config', 'definition', 'parse_config', 'parse_config'],
    ['where is acquireLock used', 'references', 'acquireLock', 'acquireLock'],
    ['what calls write_record?', 'references', 'write_record', 'write_record'],
    ['callers of Bm25Index.search', 'references', 'Bm25Index.search', 'Bm25Index.search'],
    ['why was LOCK_TIMEOUT changed', 'history', 'LOCK_TIMEOUT', 'LOCK_TIMEOUT'],
    ['when was the retry policy introduced?', 'history', null, 'retry policy'],
    ['who wrote the blame parser', 'history', null, 'blame parser'],
    ['where is the lock acquired', 'conceptual', null, 'lock acquired'],
    ['how are blob records written', 'conceptual', null, 'blob records written'],
    ['What is the meaning of life?', 'conceptual', null, 'meaning life'],
  ]
  for (const [question, type, symbol, searchText] of cases) {
    it(`${JSON.stringify(question)} → ${type}`, () => {
      const c = classifyQuestion(question)
      assert.deepEqual([c.queryType, c.symbol, c.searchText], [type, symbol, searchText])
    })
  }
})

describe('oracle question classification: names the index defines', () => {
  const defines = (name: string): boolean => ['setupmethod', 'Context'].includes(name)

  it('takes the word a history question asks about for its symbol when the code defines it', () => {
    for (const question of ['When was setupmethod added?', 'why was the setupmethod changed', 'history of setupmethod']) {
      const named = withDefinedNames(classifyQuestion(question), question, defines)
      assert.deepEqual([named.queryType, named.symbol], ['history', 'setupmethod'], question)
    }
  })

  it('leaves a word the code does not define, and a plain word outside a history question, to search', () => {
    assert.equal(withDefinedNames(classifyQuestion('when was the cache changed'), 'when was the cache changed', defines).symbol, null)
    assert.equal(withDefinedNames(classifyQuestion('how does setupmethod work'), 'how does setupmethod work', defines).symbol, null)
  })
})
