import assert from 'node:assert/strict'
import { stem } from '../../src/core/search/stem.js'

describe('stem (Porter2)', () => {
  it('matches the Snowball sample vocabulary', () => {
    // Consecutive entries of the published Porter2 voc.txt / output.txt.
    const examples: Array<[string, string]> = [
      ['consign', 'consign'], ['consigned', 'consign'], ['consigning', 'consign'], ['consignment', 'consign'],
      ['consist', 'consist'], ['consisted', 'consist'], ['consistency', 'consist'], ['consistent', 'consist'],
      ['consistently', 'consist'], ['consisting', 'consist'], ['consists', 'consist'], ['consolation', 'consol'],
      ['consolations', 'consol'], ['consolatory', 'consolatori'], ['console', 'consol'], ['consoled', 'consol'],
      ['consoles', 'consol'], ['consolidate', 'consolid'], ['consolidated', 'consolid'], ['consolidating', 'consolid'],
      ['consoling', 'consol'], ['consolingly', 'consol'], ['consols', 'consol'], ['consonant', 'conson'],
      ['consort', 'consort'], ['consorted', 'consort'], ['consorting', 'consort'], ['conspicuous', 'conspicu'],
      ['conspicuously', 'conspicu'], ['conspiracy', 'conspiraci'], ['conspirator', 'conspir'], ['conspirators', 'conspir'],
      ['conspire', 'conspir'], ['conspired', 'conspir'], ['conspiring', 'conspir'], ['constable', 'constabl'],
      ['constables', 'constabl'], ['constance', 'constanc'], ['constancy', 'constanc'], ['constant', 'constant'],
      ['knack', 'knack'], ['knackeries', 'knackeri'], ['knaves', 'knave'], ['knavish', 'knavish'], ['kneaded', 'knead'],
      ['kneading', 'knead'], ['knee', 'knee'], ['kneel', 'kneel'], ['kneeled', 'kneel'], ['kneeling', 'kneel'],
      ['kneels', 'kneel'], ['knees', 'knee'], ['knell', 'knell'], ['knelt', 'knelt'], ['knew', 'knew'], ['knick', 'knick'],
      ['knif', 'knif'], ['knife', 'knife'], ['knight', 'knight'], ['knightly', 'knight'], ['knights', 'knight'],
      ['knit', 'knit'], ['knits', 'knit'], ['knitted', 'knit'], ['knitting', 'knit'], ['knives', 'knive'], ['knob', 'knob'],
      ['knobs', 'knob'], ['knock', 'knock'], ['knocked', 'knock'], ['knocker', 'knocker'], ['knockers', 'knocker'],
      ['knocking', 'knock'], ['knocks', 'knock'], ['knopp', 'knopp'], ['knot', 'knot'], ['knots', 'knot'],
    ]
    for (const [word, expected] of examples) assert.equal(stem(word), expected, word)
  })

  it('handles the special regions, exceptions and each step', () => {
    const examples: Array<[string, string]> = [
      ['generously', 'generous'], ['community', 'communiti'], ['arsenal', 'arsenal'], // gener/commun/arsen R1
      ['skies', 'sky'], ['dying', 'die'], ['news', 'news'], ['succeed', 'succeed'], // exceptions
      ['cries', 'cri'], ['ties', 'tie'], ['caresses', 'caress'], ['ponies', 'poni'], ['cats', 'cat'], // 1a
      ['hopping', 'hop'], ['hoped', 'hope'], ['agreed', 'agre'], ['running', 'run'], ['yelling', 'yell'], // 1b
      ['saying', 'say'], ['flies', 'fli'], // Y and 1c
      ['fluently', 'fluentli'], ['relational', 'relat'], ['conditional', 'condit'], ['initialization', 'initi'], // 2
      ['electrical', 'electr'], ['hopefulness', 'hope'], ['beautifully', 'beauti'], // 3
      ['adjustment', 'adjust'], ['dependent', 'depend'], ['allocation', 'alloc'], ['allocated', 'alloc'], // 4
      ['devices', 'devic'], ['interrupts', 'interrupt'],
      ['constructor', 'constructor'], // not confused with Object.prototype members
    ]
    for (const [word, expected] of examples) assert.equal(stem(word), expected, word)
  })

  it('leaves words of one or two letters alone', () => {
    assert.equal(stem('is'), 'is')
    assert.equal(stem('a'), 'a')
  })
})
