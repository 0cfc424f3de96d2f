import { strict as assert } from 'node:assert'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { slowNotice } from '../src/core/daemon/client.js'
import { envFingerprint, repoSettings } from '../src/core/daemon/identity.js'
import { daemonPaths } from '../src/core/daemon/paths.js'
import { encodeLine, lineReader } from '../src/core/daemon/protocol.js'
import { withUserConfig } from './helpers/user-config.js'

describe('query daemon protocol and paths', () => {
  it('reads lines split anywhere, even inside a multi-byte character', () => {
    const messages: unknown[] = []
    const read = lineReader((message) => messages.push(message), () => assert.fail('garbage'))
    const bytes = Buffer.from(encodeLine({ type: 'result', result: { text: 'naïve → ✓' }, notes: [] }) + encodeLine({ type: 'accepted' }))
    for (let i = 0; i < bytes.length; i += 3) read(bytes.subarray(i, i + 3))
    assert.deepEqual(messages, [{ type: 'result', result: { text: 'naïve → ✓' }, notes: [] }, { type: 'accepted' }])
  })

  it('stops at a line that is not JSON', () => {
    let garbage = 0
    const messages: unknown[] = []
    lineReader((message) => messages.push(message), () => garbage++)(Buffer.from('{"a":1}\nnot json\n{"b":2}\n'))
    assert.deepEqual(messages, [{ a: 1 }])
    assert.equal(garbage, 1)
  })

  it('puts the socket under .vlt/run when the path fits sun_path, else in the temp dir by hash', () => {
    assert.equal(daemonPaths('/repo/.vlt', 'linux').socket, '/repo/.vlt/run/daemon.sock')
    const deep = `/${'d'.repeat(120)}/.vlt`
    const socket = daemonPaths(deep, 'linux').socket
    assert.ok(socket.startsWith(join(tmpdir(), 'git-vlt-')) && socket.endsWith('.sock'), socket)
    assert.notEqual(socket, daemonPaths(`/${'e'.repeat(120)}/.vlt`, 'linux').socket)
    assert.equal(daemonPaths(deep, 'linux').log, join(deep, 'run', 'daemon.log'))
    assert.match(daemonPaths('/repo/.vlt', 'win32').socket, /^\\\\\.\\pipe\\git-vlt-[0-9a-f]{16}$/)
  })

  it('fingerprints only the environment an answer can depend on', () => {
    const base = { GIT_DIR: '/x', VLT_MCP_CHECK_MS: '5', MY_KEY: 'k', PWD: '/a', _: 'node' }
    const root = tmpdir()
    const print = envFingerprint(base, root, { keyNames: ['MY_KEY'] })
    assert.equal(envFingerprint({ ...base, PWD: '/b', _: 'git', SHLVL: '3', GIT_EXEC_PATH: '/usr/lib/git-core', GIT_VLT_DAEMON: '1' }, root, { keyNames: ['MY_KEY'] }), print)
    assert.notEqual(envFingerprint({ ...base, GIT_CONFIG_PARAMETERS: "'core.excludesfile'='x'" }, root, { keyNames: ['MY_KEY'] }), print)
    assert.notEqual(envFingerprint({ ...base, MY_KEY: 'other' }, root, { keyNames: ['MY_KEY'] }), print)
    assert.notEqual(envFingerprint({ ...base, GIT_DIR: '/y' }, root, { keyNames: ['MY_KEY'] }), print)
  })

  it('depends on which language servers PATH finds, not on PATH itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vlt-fingerprint-'))
    try {
      const repo = join(dir, 'repo')
      const servers = join(dir, 'servers')
      const gitCore = join(dir, 'git-core')
      for (const made of [repo, servers, gitCore, join(repo, 'bin')]) mkdirSync(made)
      const executable = (path: string): void => {
        writeFileSync(path, '#!/bin/sh\n')
        chmodSync(path, 0o755)
      }
      executable(join(servers, 'pyright-langserver'))
      executable(join(gitCore, 'git'))
      executable(join(repo, 'bin', 'gopls'))
      const path = process.env.PATH ?? ''
      const print = (PATH: string): string => envFingerprint({ PATH }, repo, { keyNames: [] })
      // A client whose PATH finds another pyright-langserver would start another server than the daemon's.
      assert.notEqual(print(`${servers}:${path}`), print(path))
      // `git vlt` puts git's exec path first, `git-vlt` does not: the same servers, the same daemon.
      assert.equal(print(`${gitCore}:${path}`), print(path))
      assert.equal(print(`${gitCore}:${servers}:${path}`), print(`${servers}:${path}`))
      // An entry inside the repository is never searched (src/core/executables), so it changes nothing.
      assert.equal(print(`${join(repo, 'bin')}:${path}`), print(path))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('depends on the user config: its key names and its text', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'vlt-settings-'))
    try {
      assert.deepEqual(await repoSettings(repo), { daemon: true, keyNames: ['OPENROUTER_API_KEY'] })
      const first = await withUserConfig('[llm]\napi_key_env = "MY_LLM_KEY"\n[query]\ndaemon = false\n', () => repoSettings(repo))
      assert.deepEqual([first.daemon, first.keyNames], [false, ['OPENROUTER_API_KEY', 'MY_LLM_KEY']])
      const second = await withUserConfig('[llm]\napi_key_env = "MY_LLM_KEY"\nmodel = "other/model"\n[query]\ndaemon = false\n', () => repoSettings(repo))
      assert.notEqual(first.userConfig, undefined)
      assert.notEqual(envFingerprint({}, repo, first), envFingerprint({}, repo, { keyNames: first.keyNames }))
      assert.notEqual(second.userConfig, first.userConfig, 'an edited user config is another environment: the daemon is replaced')
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('tells a terminal user why a query through the daemon is slow, and clears the line after', async () => {
    const written: string[] = []
    const terminal = { isTTY: true, write: (text: string) => written.push(text) > 0 }
    slowNotice(terminal, {})()
    assert.deepEqual(written, [], 'a quick answer shows nothing')
    const quiet: string[] = []
    const pipe = { isTTY: false, write: (text: string) => quiet.push(text) > 0 }
    const clears = [slowNotice(terminal, {}), slowNotice(pipe, {}), slowNotice({ ...terminal, write: pipe.write }, { CI: '1' })]
    await sleep(1_600)
    for (const clear of clears) clear()
    assert.deepEqual(written, ['git vlt: the query daemon is bringing the index up to date…', '\r\x1b[K'])
    assert.deepEqual(quiet, [], 'pipes and CI see nothing')
  })
})
