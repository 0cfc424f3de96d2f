/**
 * What `npm run build` copies out of dev dependencies and the sources load at run time: the
 * grammars' wasm (grammars/) and msgpackr (vendor/msgpackr, behind `#msgpackr`). .mocharc.json
 * requires this module before any test, so targeted tests from source work straight after `npm ci`
 * without a build; the package itself has no lifecycle script (npm 11 flags even `prepare`).
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

if (!existsSync(join(ROOT, 'grammars', 'sources.json'))) await import('../../scripts/grammars.js')
if (!existsSync(join(ROOT, 'vendor', 'msgpackr', 'sources.json'))) await import('../../scripts/msgpackr.js')
