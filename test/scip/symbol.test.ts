import { strict as assert } from 'node:assert'
import { scipName } from '../../src/core/scip/symbol.js'

describe('scip symbol names', () => {
  it('reads the qualified name and kind inside the file from the descriptors', () => {
    const ts = (descriptors: string): string => `scip-typescript npm . . src/\`shapes.ts\`/${descriptors}`
    assert.deepEqual(scipName(ts('Circle#area().')), { qualifiedName: 'Circle.area', name: 'area', kind: 'method' })
    assert.deepEqual(scipName(ts('make().')), { qualifiedName: 'make', name: 'make', kind: 'function' })
    assert.deepEqual(scipName(ts('Circle#')), { qualifiedName: 'Circle', name: 'Circle', kind: 'class' })
    assert.deepEqual(scipName(ts('Point#typeLiteral0:x.')), { qualifiedName: 'Point.x', name: 'x', kind: 'field' })
    assert.deepEqual(scipName(ts('Geometry/origin.')), { qualifiedName: 'origin', name: 'origin', kind: 'variable' })
    assert.deepEqual(scipName('scip-python python my  pkg 0.1 `app.models`/User#`save-all`().'), { qualifiedName: 'User.save-all', name: 'save-all', kind: 'method' })
  })

  it('makes a constructor parameter a field only when the indexer calls it a property', () => {
    const parameter = 'scip-typescript npm . . src/`disc.ts`/Disc#`<constructor>`().(radius)'
    assert.deepEqual(scipName(parameter, '(property) radius: number'), { qualifiedName: 'Disc.radius', name: 'radius', kind: 'field' })
    assert.equal(scipName(parameter, '(parameter) radius: number'), undefined)
    assert.equal(scipName(parameter), undefined)
  })

  it('names nothing for locals, namespaces alone, and what does not parse', () => {
    assert.equal(scipName('local 3'), undefined)
    assert.equal(scipName('scip-typescript npm . . src/`shapes.ts`/'), undefined)
    assert.equal(scipName('scip-typescript npm . . src/`shapes.ts`/Circle#area(.'), undefined)
    assert.equal(scipName('garbage'), undefined)
  })
})
