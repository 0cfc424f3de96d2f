/**
 * `npm run bench -- <suite> [args]`: runs one benchmark suite and prints its figures
 * (also written as JSON to bench/results/<suite>.json, or the name the suite's `resultName` gives for
 * these args: runs over different corpora must not overwrite each other's figures).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

interface Suite {
  run(args: string[]): Promise<unknown>
  resultName?(args: string[]): string
}

const SUITES: Record<string, { describe: string; load: () => Promise<Suite> }> = {
  index: { describe: 'cold init, incremental and no-change sync on Linux 10k C files and Django, vs universal-ctags', load: () => import('./index-bench.js') },
  bm25: { describe: 'Bm25Index build/snapshot/query latency on Linux 10k chunks', load: () => import('./bm25.js') },
  tags: { describe: 'parse vs tags-query cost (ms/MB) per language on real code', load: () => import('./tags-bench.js') },
  vectors: { describe: 'usearch build/search/recall and the vector cache on 200k × 1024 vectors', load: () => import('./vectors-bench.js') },
  defs: { describe: 'definitions: top-1/recall on sympy vs Python ast and universal-ctags; def latency on Linux 10k', load: () => import('./defs-bench.js') },
  refs: { describe: 'references: recall/precision on rxjs vs the TypeScript language service and on flask, click, django, werkzeug vs pyright, with GNU global and ripgrep; refs latency', load: () => import('./refs-bench.js') },
  search: { describe: 'natural-language recall (Django, docstrings removed) and search latency on Linux 10k', load: () => import('./search-bench.js') },
  history: { describe: 'agent history: ingest speed for 100k transcript lines, search latency', load: () => import('./history-bench.js') },
  notes: { describe: 'notes index build (cold, one edit, revert) and search latency on node_modules markdown', load: () => import('./notes-bench.js') },
  repomap: { describe: 'repo map over Linux 10k, or the whole tree with --corpus=linux (whole tree, drivers/, focus): in process, cold CLI, served; scoped and focused maps compared with the exact ones', load: () => import('./repomap-bench.js') },
  oracle: { describe: "oracle answers on flask, click, express (gold-evidence recall, cited-location precision, latency, tokens; offline and LLM/loopback); `latency`/`citations`: issue 4's Django slice and this repository's commits", load: () => import('./oracle-bench.js') },
  mcp: { describe: 'MCP warm tool-call latency and 10 concurrent clients on Linux 10k', load: () => import('./mcp-bench.js') },
  daemon: { describe: 'CLI wall time of search/def/refs on Linux 10k: served by the warm query daemon, in process, and the first call', load: () => import('./daemon-bench.js') },
  commits: { describe: 'commit index: full build and size (default scrapy, 11k commits; or a mirror: commits redis+redis) vs git log, one-commit update, load and similar-commit query', load: () => import('./commits-bench.js') },
  commit: { describe: 'one-file commit → hooks → background sync → index holds the new tree (Django, Linux 10k)', load: () => import('./commit-bench.js') },
  hooks: { describe: 'time a git commit gains from the installed hooks', load: () => import('./hook-bench.js') },
  localize: { describe: 'file localization from commit messages on 8 real repositories (tuning and held-out halves): plain BM25, coderag search, the history prototype, search --files (fused and each path)', load: () => import('./localize.js') },
  cache: { describe: 'remote cache: cold init vs cold init writing back vs a fresh clone reading the warm cache (nginx WebDAV on 127.0.0.1), Linux 10k, Linux or Django', load: () => import('./remote-cache-bench.js') },
  shards: { describe: 'coderag init --shard K/N in N clones at once, then coderag merge, beside a single cold init (Linux 10k, Linux or Django)', load: () => import('./shard-bench.js') },
  scale: { describe: 'issue 20: Linux 10k and the whole Linux tree — cold init, .vlt size, cold and warm def/refs/search/map, shards, warm remote cache — beside universal-ctags and the tree-sitter floor', load: () => import('./scale-bench.js') },
  ui: { describe: 'git vlt ui in chromium: first token on screen after the model wrote it, page ready, assets gzipped', load: () => import('./ui-bench.js') },
  flexsearch: { describe: 'flexsearch vs Bm25Index: build time, memory, latency and ranking on the same chunks', load: () => import('./bm25-vs-flexsearch.js') },
}

const [suite, ...args] = process.argv.slice(2)
if (!suite || !SUITES[suite]) {
  process.stderr.write(`usage: npm run bench -- <suite>\n${Object.entries(SUITES).map(([name, s]) => `  ${name.padEnd(10)} ${s.describe}`).join('\n')}\n`)
  process.exit(2)
}
const loaded = await SUITES[suite].load()
const figures = await loaded.run(args)
const out = join(dirname(fileURLToPath(import.meta.url)), 'results')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, `${loaded.resultName?.(args) ?? suite}.json`), `${JSON.stringify(figures, null, 2)}\n`)
process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
