/**
 * The built web app (`npm run build` bundles web/ into dist/ui/, shipped in the package): read once
 * at start, each file kept with its gzipped bytes. Only these names are served, so no URL is ever
 * turned into a file path.
 */
import { readdir, readFile } from 'node:fs/promises'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { VltError } from '../errors.js'

export interface Asset {
  name: string
  type: string
  bytes: Buffer
  gzipped: Buffer
}

/** dist/ui of the package, from this module in src/core/ui (tests) or dist/core/ui (the CLI). */
export const ASSETS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'ui')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

export async function loadAssets(dir = ASSETS_DIR): Promise<Map<string, Asset>> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    throw new VltError(`the web app is not built (${dir} is missing): run npm run build`)
  }
  const assets = new Map<string, Asset>()
  for (const name of names) {
    const type = TYPES[extname(name)]
    if (!type) continue
    const bytes = await readFile(join(dir, name))
    assets.set(name, { name, type, bytes, gzipped: gzipSync(bytes, { level: 9 }) })
  }
  if (!assets.has('index.html')) throw new VltError(`the web app is not built (${dir} has no index.html): run npm run build`)
  return assets
}
