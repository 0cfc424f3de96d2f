import { strict as assert } from 'node:assert'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { askOracle } from '../../src/core/oracle/index.js'

/** The relevance floor on a real repository: this one (its index is built on first use). */
describe('oracle relevance calibration on this repository', function () {
  this.timeout(120_000)
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

  it('finds no evidence for a question no code repository answers', async () => {
    const response = await askOracle(root, 'What is the meaning of life?', { noLog: true, sources: ['code'] })
    assert.deepEqual(response.sources, [])
  })

  it('cites the lock and record-store modules for real questions', async () => {
    const lock = await askOracle(root, 'where is the lock acquired', { noLog: true, sources: ['code'] })
    assert.equal(lock.sources[0]!.metadata.path, 'src/core/store/lock.ts')
    const records = await askOracle(root, 'how are blob records written', { noLog: true, sources: ['code'] })
    // The modules that write them: the build, the record format, the store's loose files and packs.
    const writers = ['src/core/index/build.ts', 'src/core/store/record.ts', 'src/core/index/blob-store.ts']
    assert.ok(records.sources.some((s) => writers.includes(String(s.metadata.path))), records.sources.map((s) => s.sourcePath).join(' '))
  })
})
