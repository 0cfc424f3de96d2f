#!/usr/bin/env node
// `coderag sync` runs after every commit and before queries: its plain forms skip oclif's start-up.
const argv = process.argv.slice(2)
const served = argv[0] === 'coderag' && argv[1] === 'sync' && (await import('../dist/core/cli/fast-sync.js')).tryFastSync(argv)

if (!(await served)) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
