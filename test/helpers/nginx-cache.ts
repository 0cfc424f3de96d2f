/**
 * A real HTTP cache for the remote-cache tests: Debian's nginx with WebDAV PUT, as teams run one
 * for Bazel or Gradle, serving a temporary directory on 127.0.0.1. With `token`, a request without
 * `Authorization: Bearer <token>` is refused with 401. `.ci/run` installs nginx when missing.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path))

export interface NginxCache {
  url: string
  /** The directory nginx serves: what the cache holds, file by file. */
  data: string
  stop(): Promise<void>
}

export async function startNginxCache({ token }: { token?: string } = {}): Promise<NginxCache> {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install nginx-light)')
  const dir = mkdtempSync(join(tmpdir(), 'vlt-nginx-'))
  const data = join(dir, 'data')
  mkdirSync(data)
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp))
  const port = await freePort()
  const auth = token ? `if ($http_authorization != "Bearer ${token}") { return 401; }` : ''
  // As root, workers would run as nobody and could not write the temporary directory.
  const user = process.getuid?.() === 0 ? 'user root;' : ''
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${user}
daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${data};
    client_max_body_size 0;
    location / {
      ${auth}
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw;
    }
  }
}
`,
  )
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  await waitForPort(port, child, () => stderr)
  return {
    url: `http://127.0.0.1:${port}/cache`,
    data,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr()}`)
    if (await accepts(port)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nginx did not listen on ${port}: ${stderr()}`)
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
