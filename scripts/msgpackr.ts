/**
 * Copies msgpackr's JavaScript encoder and decoder (and its types and licence) from the pinned dev
 * dependency into `vendor/msgpackr/` at the package root, where `#msgpackr` resolves (package.json
 * `imports`). git-vlt ships this copy rather than depending on msgpackr, because msgpackr's optional
 * native string decoder, msgpackr-extract, runs an install script (a prebuilt lookup, else a
 * node-gyp compile) on every npm 10 install; src/core/store/msgpack.ts loads the same prebuilt
 * binaries from our own optional, script-free platform packages instead. Run by `npm run build` (and
 * by test/helpers/built-assets.ts when missing).
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SOURCE = join(ROOT, 'node_modules', 'msgpackr')
const TARGET = join(ROOT, 'vendor', 'msgpackr')
/** pack.js imports unpack.js and nothing else; index.d.ts types both (the other .d.ts re-export it). */
const FILES = ['pack.js', 'unpack.js', 'index.d.ts', 'LICENSE']

rmSync(TARGET, { recursive: true, force: true })
mkdirSync(TARGET, { recursive: true })
for (const file of FILES) copyFileSync(join(SOURCE, file), join(TARGET, file))
const { version, license } = JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8')) as { version: string; license: string }
writeFileSync(join(TARGET, 'sources.json'), `${JSON.stringify({ msgpackr: { version, license, files: FILES } }, null, 2)}\n`)
