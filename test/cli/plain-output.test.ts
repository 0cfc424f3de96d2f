import { strict as assert } from 'node:assert'
import { internalErrorMessage } from '../../src/core/cli/plain-output.js'

describe('internalErrorMessage', () => {
  it('words a bug as an internal error, with the rebuild for index commands, on one line', () => {
    const bug = new TypeError('files.map is not a function\n    at buildTree (build.js:43:54)')
    assert.equal(
      internalErrorMessage('coderag sync', bug, true),
      'coderag sync failed: files.map is not a function (an internal error; `git vlt coderag init --force` rebuilds the index; GIT_VLT_DEBUG=1 prints its stack trace)',
    )
    assert.equal(internalErrorMessage('thread push', bug, false), 'thread push failed: files.map is not a function (an internal error; GIT_VLT_DEBUG=1 prints its stack trace)')
  })

  it('says what the system said of a failed system call, which no rebuild cures', () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write '/repo/.vlt/x'"), { code: 'ENOSPC', syscall: 'write' })
    assert.equal(internalErrorMessage('coderag sync', full, true), "coderag sync failed: ENOSPC: no space left on device, write '/repo/.vlt/x' (GIT_VLT_DEBUG=1 prints its stack trace)")
  })
})
