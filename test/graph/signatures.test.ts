import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { toReferenceColumns } from '../../src/core/parse/reference-columns.js'
import { SymbolTable } from '../../src/core/graph/index.js'
import type { SymbolDef } from '../../src/core/parse/types.js'

/** V8's collector, reachable without starting node with --expose-gc; waits for what it frees outside the heap (ArrayBuffers are swept after it returns). */
function collector(): () => Promise<void> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  return async () => {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

function def(name: string, signature: string): SymbolDef {
  return { name, qualifiedName: name, kind: 'function', line: 1, endLine: 2, column: 0, signature, scope: '' }
}

describe('signatures of a table being built', () => {
  it('are held deflated once their chunk is full, and read back as written', async () => {
    const gc = collector()
    const signature = (f: number, d: number): string => `static int drm_atomic_helper_commit_${f}_${d}(struct drm_device *dev, struct drm_atomic_state *state, bool nonblock)`
    const path = (f: number): string => `drivers/gpu/drm/f${String(f).padStart(4, '0')}.c`
    /** A table of 40k definitions, and the bytes it holds once built. */
    const build = async (signed: boolean): Promise<{ table: SymbolTable; held: number }> => {
      await gc()
      const before = process.memoryUsage()
      const table = new SymbolTable()
      for (let f = 0; f < 1_000; f++) {
        const symbols = Array.from({ length: 40 }, (_, d) => def(`f${f}_${d}`, signed ? signature(f, d) : ''))
        table.addFile(path(f), { language: 'c', symbols, references: toReferenceColumns([]), imports: [] })
      }
      await gc()
      const after = process.memoryUsage()
      return { table, held: after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers }
    }
    const unsigned = await build(false)
    const signed = await build(true)
    let written = 0
    for (let f = 0; f < 1_000; f++) for (let d = 0; d < 40; d++) written += signature(f, d).length
    // 4.5 MB of signatures: as UTF-8 or strings, at least as much again.
    assert.ok(signed.held - unsigned.held < written / 3, `holds ${signed.held - unsigned.held} bytes more for ${written} bytes of signatures`)
    for (const f of [0, 517, 999]) assert.deepEqual(signed.table.definitions(path(f)).map((d) => d.signature), Array.from({ length: 40 }, (_, d) => signature(f, d)))
    assert.equal(unsigned.table.fileCount, 1_000)
  })
})
