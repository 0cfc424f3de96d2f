/**
 * Where Claude Code keeps the transcripts of this repository: one project folder per working
 * directory under `<config>/projects/`, named after the directory with every character other than
 * a letter or digit replaced by `-`. A repository's sessions live in the folders of its main
 * worktree, of each linked worktree, and of any subdirectory a session was started in.
 */
import { open, readdir, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, sep } from 'node:path'
import { runInRepo, type Repo } from '../git/repo.js'
import type { TranscriptIdentity } from './parse.js'

export interface TranscriptFile extends TranscriptIdentity {
  path: string
  size: number
  mtimeMs: number
}

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude')
}

/** The project folder name Claude Code uses for a working directory. */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-')
}

/** Every working tree of the repository (main first), from `git worktree list`. */
export async function worktreeRoots(repo: Repo): Promise<string[]> {
  const out = (await runInRepo(repo, ['worktree', 'list', '--porcelain'])).toString('utf8')
  const roots: string[] = []
  let path = ''
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length)
    else if (line === 'bare') path = ''
    else if (line === '' && path) {
      roots.push(path)
      path = ''
    }
  }
  if (path) roots.push(path)
  if (repo.root && !roots.includes(repo.root)) roots.unshift(repo.root)
  return roots
}

/** Is `path` one of the roots or inside one? */
export function insideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path)
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
  })
}

/** All transcripts of sessions run in one of `roots`, with their subagent transcripts. */
export async function findTranscripts(roots: readonly string[], configDir: string): Promise<TranscriptFile[]> {
  const projects = join(configDir, 'projects')
  const names = await readdir(projects).catch(() => [] as string[])
  const exact = new Set(roots.map(projectDirName))
  const folders: string[] = []
  for (const name of names) {
    if (exact.has(name)) folders.push(name)
    // `-home-me-repo-src` may be the repo's src/ or a sibling `/home/me/repo-src`: ask a transcript.
    else if ([...exact].some((prefix) => name.startsWith(`${prefix}-`)) && (await folderCwdInside(join(projects, name), roots))) folders.push(name)
  }
  const files: TranscriptFile[] = []
  for (const folder of folders.sort()) await collectFolder(join(projects, folder), files)
  return files
}

async function collectFolder(dir: string, into: TranscriptFile[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.isFile() && entry.name.endsWith('.jsonl')) {
      const id = entry.name.slice(0, -'.jsonl'.length)
      // Older versions wrote subagent transcripts beside the sessions, as agent-<id>.jsonl.
      const agent = agentIdOf(entry.name)
      if (agent === 'compaction-helper') continue
      await pushFile(into, join(dir, entry.name), agent === null ? { sessionId: id, agentId: null, isSidechain: false } : { sessionId: '', agentId: agent, isSidechain: true })
    } else if (entry.isDirectory()) {
      const subagents = join(dir, entry.name, 'subagents')
      const agents = await readdir(subagents).catch(() => [] as string[])
      for (const name of agents.sort()) {
        const agent = agentIdOf(name)
        if (agent === null || agent === 'compaction-helper' || !name.endsWith('.jsonl')) continue
        await pushFile(into, join(subagents, name), { sessionId: entry.name, agentId: agent, isSidechain: true })
      }
    }
  }
}

/** `agent-<id>.jsonl` → id; `agent-acompact-*` files only help compaction, they are not subagents. */
function agentIdOf(name: string): string | null {
  const match = /^agent-(.+)\.jsonl$/.exec(name)
  if (!match) return null
  return match[1].startsWith('acompact') ? 'compaction-helper' : match[1]
}

async function pushFile(into: TranscriptFile[], path: string, identity: TranscriptIdentity): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (info?.isFile()) into.push({ path, size: info.size, mtimeMs: info.mtimeMs, ...identity })
}

/** Reads the head of one transcript in the folder for the `cwd` its sessions ran in. */
async function folderCwdInside(dir: string, roots: readonly string[]): Promise<boolean> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.jsonl'))
  for (const name of names) {
    const cwd = await headCwd(join(dir, name))
    if (cwd) return insideRoots(cwd.split('/').join(sep), roots)
  }
  return false
}

const HEAD_BYTES = 64 * 1024

async function headCwd(path: string): Promise<string | null> {
  const handle = await open(path, 'r').catch(() => undefined)
  if (!handle) return null
  try {
    const buf = Buffer.alloc(HEAD_BYTES)
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0)
    for (const line of buf.toString('utf8', 0, bytesRead).split('\n')) {
      const match = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(line)
      if (match) return JSON.parse(`"${match[1]}"`) as string
    }
    return null
  } finally {
    await handle.close()
  }
}
