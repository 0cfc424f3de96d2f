import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

/** A package-lock.json entry: what npm needs to resolve and fetch that exact version. */
interface LockEntry {
  name?: string
  version?: string
  resolved?: string
  integrity?: string
  link?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, unknown>
  bin?: Record<string, string> | string
  engines?: Record<string, string>
  os?: string[]
  cpu?: string[]
  hasInstallScript?: boolean
}

export interface LocalRegistry {
  url: string
  close(): Promise<void>
}

/**
 * An npm registry on 127.0.0.1 serving exactly the versions a lockfile pins, their tarballs read
 * from the npm cache that `npm ci` filled (content-addressed by integrity), so an `npm install` of
 * our packed tarball resolves and downloads without the internet. A tarball the cache lacks is a
 * 404 (npm then fails, or skips it when it is an optional dependency of another platform).
 */
export async function startLocalRegistry(lockfile: string, npmCache: string): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, LockEntry> }
  const versions = new Map<string, Map<string, LockEntry>>()
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link || !entry.version || !entry.integrity) continue
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    if (!versions.has(name)) versions.set(name, new Map())
    versions.get(name)!.set(entry.version, entry)
  }
  let url = ''
  const packument = (name: string) => {
    const byVersion = versions.get(name)!
    const list = [...byVersion.keys()]
    return {
      name,
      'dist-tags': { latest: list[list.length - 1] },
      versions: Object.fromEntries(
        [...byVersion].map(([version, { resolved: _r, integrity, link: _l, name: _n, ...manifest }]) => [
          version,
          { ...manifest, name, version, dist: { tarball: `${url}/-/tarball/${encodeURIComponent(name)}/${version}.tgz`, integrity } },
        ]),
      ),
    }
  }
  const tarball = (name: string, version: string): Buffer | undefined => {
    const integrity = versions.get(name)?.get(version)?.integrity
    if (!integrity) return undefined
    const [algorithm, digest] = integrity.split(' ')[0]!.split('-') as [string, string]
    const hex = Buffer.from(digest, 'base64').toString('hex')
    try {
      return readFileSync(join(npmCache, '_cacache', `content-v2`, algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)))
    } catch {
      return undefined
    }
  }
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1))
    const file = /^-\/tarball\/(.+)\/([^/]+)\.tgz$/.exec(path)
    const body = file ? tarball(file[1]!, file[2]!) : versions.has(path) ? Buffer.from(JSON.stringify(packument(path))) : undefined
    if (!body) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
      return
    }
    res.writeHead(200, { 'content-type': file ? 'application/octet-stream' : 'application/json', 'content-length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
