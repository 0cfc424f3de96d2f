/**
 * Builds the web app of `git vlt ui` (web/) into dist/ui/, shipped in the package so that users
 * need no build step: one minified ES module (the app, marked, highlight.js's core with the
 * languages it registers), the stylesheet and the page. Prints each file's size, raw and gzipped.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const web = join(root, 'web')
const out = join(root, 'dist', 'ui')
mkdirSync(out, { recursive: true })
await build({
  entryPoints: [join(web, 'src', 'main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
})
copyFileSync(join(web, 'index.html'), join(out, 'index.html'))
copyFileSync(join(web, 'app.css'), join(out, 'app.css'))

let total = 0
for (const name of readdirSync(out).sort()) {
  const bytes = readFileSync(join(out, name))
  const gzipped = gzipSync(bytes, { level: 9 }).length
  total += gzipped
  process.stdout.write(`dist/ui/${name}: ${(bytes.length / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped\n`)
}
process.stdout.write(`dist/ui: ${(total / 1024).toFixed(1)} KB gzipped\n`)
