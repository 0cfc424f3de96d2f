import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { CLI, cliEnv } from '../helpers/cli.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

export interface McpSession {
  client: Client
  stderr: () => string
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: any }>
  close(): Promise<void>
}

/** The built CLI's `mcp` command in `dir`, reached through the SDK client over stdio. */
export async function connect(dir: string, env: Record<string, string> = {}, clientName = 'mcp-test'): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    cwd: dir,
    env: cliEnv({ VLT_MCP_CHECK_MS: '0', ...env }) as Record<string, string>,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: clientName, version: '1.0.0' })
  await client.connect(transport)
  return {
    client,
    stderr: () => stderr,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent?: any },
    close: () => client.close(),
  }
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
}

export const USER_SERVICE = `from src.db import Database


class UserService:
    """Manages users and their sessions."""

    def __init__(self):
        self.db = Database()

    def login(self, name, password):
        user = self.db.find_user(name)
        return authenticate_user(user, password)


def authenticate_user(user, password):
    return user is not None and user.password == password
`

export const DB = `class Database:
    def find_user(self, name):
        return self.query("select * from users where name = ?", name)

    def query(self, sql, *args):
        return None
`

/** Sixty call sites of helper(), in three files, for paging. */
function callers(file: number): string {
  const lines = ['from src.helpers import helper', '', '']
  for (let f = 0; f < 4; f++) {
    lines.push(`def caller_${file}_${f}():`)
    for (let c = 0; c < 5; c++) lines.push(`    helper(${c})  # call ${c} of caller_${file}_${f} in module ${file}`)
    lines.push('', '')
  }
  return lines.join('\n')
}

/** Modules with documented functions, so that maps and searches have bulk. */
function bulk(n: number): string {
  const out: string[] = []
  for (let i = 0; i < 12; i++) {
    out.push(`def compute_metric_${n}_${i}(values, weights, threshold=0.5):`, `    """Computes metric ${i} of module ${n} over weighted values above a threshold."""`, `    return sum(v * w for v, w in zip(values, weights) if v > threshold)`, '', '')
  }
  return out.join('\n')
}

export function shopRepo(): GitFixture {
  const files: Record<string, string> = {
    'src/__init__.py': '',
    'src/user_service.py': USER_SERVICE,
    'src/db.py': DB,
    'src/helpers.py': 'def helper(n):\n    return n * 2\n',
  }
  for (let i = 0; i < 3; i++) files[`src/callers_${i}.py`] = callers(i)
  for (let i = 0; i < 10; i++) files[`src/metrics/module_${i}.py`] = bulk(i)
  return createGitRepo({ files })
}
