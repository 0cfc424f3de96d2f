import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureVltDir, GITIGNORE } from '../../src/core/store/index.js'

describe('store/layout: ensureVltDir', () => {
  let vlt: string
  beforeEach(() => {
    vlt = join(realpathSync(mkdtempSync(join(tmpdir(), 'vlt-layout-'))), '.vlt')
  })
  afterEach(() => rmSync(join(vlt, '..'), { recursive: true, force: true }))

  it('clears the temp file of a run killed while writing .gitignore (no lock guards that write)', async () => {
    mkdirSync(vlt)
    // pid 999999 is above Linux's default pid_max: its writer is gone.
    writeFileSync(join(vlt, '.gitignore.999999-0-abcdef01.vlt-tmp'), '# Written by git')
    // A live writer's temp file (ours) and another target's are not this sweep's to remove.
    writeFileSync(join(vlt, `.gitignore.${process.pid}-0-abcdef02.vlt-tmp`), '')
    writeFileSync(join(vlt, 'state.mpk.999999-0-abcdef03.vlt-tmp'), '')
    await ensureVltDir(vlt)
    assert.equal(readFileSync(join(vlt, '.gitignore'), 'utf8'), GITIGNORE)
    assert.deepEqual(readdirSync(vlt).sort(), ['.gitignore', `.gitignore.${process.pid}-0-abcdef02.vlt-tmp`, 'state.mpk.999999-0-abcdef03.vlt-tmp'])
  })
})
