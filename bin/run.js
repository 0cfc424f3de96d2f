#!/usr/bin/env node
// `coderag sync` and the query commands (search, def, refs, map) skip oclif's start-up when they can (src/core/cli/fast-path.ts).
const argv = process.argv.slice(2)
const served = argv[0] === 'coderag' && (await import('../dist/core/cli/fast-path.js')).tryFastPath(argv)

if (!(await served)) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
