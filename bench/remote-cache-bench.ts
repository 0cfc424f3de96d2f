/**
 * `npm run bench -- cache [linux10k|linux|django]`: what the remote cache ([cache] remote) saves a fresh
 * clone. Three clones of the corpus, each `coderag init` a child process timed by /usr/bin/time:
 * cold without a cache (the peer, same hour), cold writing its records back (push), and a fresh
 * clone reading them from the warm cache. The cache is Debian's nginx with WebDAV PUT on
 * 127.0.0.1 (test/helpers/nginx-cache.ts), so the figures leave a network's latency out.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startNginxCache } from '../test/helpers/nginx-cache.js'
import { corpus, directoryBytes, git, type CorpusName } from './corpus.js'

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')

interface Run {
  wallS: number
  cpuS: number
  peakRssMb: number
  extracted: number
  warnings: string[]
}

function init(dir: string, config: string): Run {
  const started = Date.now()
  const child = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, CLI, 'coderag', 'init', '--json'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, GIT_VLT_DAEMON: '0', GIT_VLT_CONFIG: config },
  })
  if (child.status !== 0) throw new Error(`coderag init in ${dir} exited ${child.status}: ${child.stderr}`)
  const [user, system, rssKb] = child.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number]
  const result = JSON.parse(child.stdout) as { extracted: number; warnings: string[] }
  return { wallS: (Date.now() - started) / 1000, cpuS: Number((user + system).toFixed(2)), peakRssMb: Math.round(rssKb / 1024), extracted: result.extracted, warnings: result.warnings }
}

/** bench/results/cache.json for Linux 10k (the default), cache-<corpus>.json for another. */
export function resultName(args: string[]): string {
  const name = args[0] ?? 'linux10k'
  return name === 'linux10k' ? 'cache' : `cache-${name}`
}

export async function run(args: string[]): Promise<unknown> {
  const name = (args[0] ?? 'linux10k') as CorpusName
  return { corpus: name, ...(await cacheRuns(corpus(name))) }
}

/**
 * Cold init without a cache (unless the caller measured one: `cold`), cold init writing back, and a
 * fresh clone reading the warm cache, each in a clone of the source.
 */
export async function cacheRuns(source: string, peer?: Pick<Run, 'wallS' | 'cpuS'>) {
  const work = mkdtempSync(join(tmpdir(), 'vlt-cache-bench-'))
  const cache = await startNginxCache()
  try {
    const clone = (label: string): string => {
      const dir = join(work, label)
      git(work, 'clone', '-q', '--no-hardlinks', source, dir)
      return dir
    }
    const config = (label: string, push: boolean): string => {
      const path = join(work, `${label}.toml`)
      writeFileSync(path, `[cache]\nremote = "${cache.url}"\npush = ${push}\n`)
      return path
    }
    const withoutCache = (): string => {
      const path = join(work, 'none.toml')
      writeFileSync(path, '')
      return path
    }
    const cold = peer ?? init(clone('cold'), withoutCache())
    const pushed = init(clone('push'), config('push', true))
    const warm = init(clone('warm'), config('warm', false))
    return {
      cache: 'nginx 1.22 WebDAV on 127.0.0.1',
      cacheMb: Math.round(directoryBytes(cache.data) / 1024 / 1024),
      ...(!peer && { coldNoCache: cold }),
      coldWritingBack: pushed,
      freshCloneWarmCache: warm,
      warmShareOfCold: Number((warm.wallS / cold.wallS).toFixed(3)),
      // Wall time moves with the machine's load between runs; CPU seconds much less.
      warmCpuShareOfCold: Number((warm.cpuS / cold.cpuS).toFixed(3)),
      loadAverage: loadavg()[0],
    }
  } finally {
    await cache.stop()
    rmSync(work, { recursive: true, force: true })
  }
}
