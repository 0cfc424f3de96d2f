import { strict as assert } from 'node:assert'
import { fromReferenceColumns, referenceAt, rowsNamed, toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import type { SymbolRef } from '../../src/core/parse/types.js'
import { BLOB_RECORD_KIND, BLOB_RECORD_VERSION } from '../../src/core/index/blob-task.js'
import { decodeRecord, encodeRecord } from '../../src/core/store/index.js'

describe('reference columns', () => {
  const references: SymbolRef[] = [
    { name: 'kmalloc', line: 3, column: 8, kind: 'call', enclosing: 'probe' },
    { name: 'dev', line: 3, column: 16, kind: 'reference', enclosing: 'probe' },
    { name: 'lock', line: 4, column: 12, kind: 'call', enclosing: 'probe', receiver: 'dev->mutex' },
    { name: 'device', line: 9, column: 0, kind: 'type', enclosing: '' },
    { name: 'Base', line: 12, column: 20, kind: 'inherit', enclosing: 'Child' },
    { name: 'helper', line: 1, column: 9, kind: 'import', enclosing: '' },
    { name: 'Other', line: 14, column: 4, kind: 'doc', enclosing: 'Child.run' },
    { name: 'kmalloc', line: 20, column: 4, kind: 'call', enclosing: 'remove', receiver: 'ops' },
  ]

  it('round-trips every field, receivers included, through a stored record', () => {
    const columns = toReferenceColumns(references)
    assert.deepEqual(columns.names, ['kmalloc', 'dev', 'lock', 'device', 'Base', 'helper', 'Other'])
    assert.deepEqual(columns.enclosings, ['probe', '', 'Child', 'Child.run', 'remove'])
    assert.deepEqual([...columns.receiverRows], [2, 7])
    const stored = decodeRecord<{ references: typeof columns }>(encodeRecord(BLOB_RECORD_KIND, BLOB_RECORD_VERSION, { references: columns }), BLOB_RECORD_KIND, BLOB_RECORD_VERSION, 'test')
    assert.deepEqual(fromReferenceColumns(stored.references), references)
  })

  it('reads the rows of some names alone, as the whole list has them', () => {
    const columns = toReferenceColumns(references)
    assert.deepEqual(rowsNamed(columns, new Set(['kmalloc', 'lock', 'absent'])), [0, 2, 7])
    assert.deepEqual(rowsNamed(columns, new Set(['absent'])), [])
    references.forEach((ref, row) => assert.deepEqual(referenceAt(columns, row), ref))
  })

  it('handles a file without references', () => {
    assert.deepEqual(fromReferenceColumns(toReferenceColumns([])), [])
  })
})
