/**
 * Copies each grammar's wasm and licence from its (dev dependency) package into `grammars/` at the
 * package root, the only part of those packages git-vlt loads, with a list of what came from
 * where. Run by `npm run build` (and by test/helpers/built-assets.ts when missing).
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { GRAMMAR_DIR, GRAMMARS } from '../src/core/parse/languages.js'

const require = createRequire(import.meta.url)

rmSync(GRAMMAR_DIR, { recursive: true, force: true })
mkdirSync(join(GRAMMAR_DIR, 'licenses'), { recursive: true })
const sources = new Map<string, { version: string; license: string; files: string[] }>()
for (const { pkg, wasm } of Object.values(GRAMMARS)) {
  const dir = dirname(require.resolve(`${pkg}/package.json`))
  copyFileSync(join(dir, wasm), join(GRAMMAR_DIR, wasm))
  const source = sources.get(pkg)
  if (source) {
    source.files.push(wasm)
    continue
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license: string }
  copyFileSync(join(dir, 'LICENSE'), join(GRAMMAR_DIR, 'licenses', pkg))
  sources.set(pkg, { version: manifest.version, license: manifest.license, files: [wasm] })
}
writeFileSync(join(GRAMMAR_DIR, 'sources.json'), `${JSON.stringify(Object.fromEntries(sources), null, 2)}\n`)
