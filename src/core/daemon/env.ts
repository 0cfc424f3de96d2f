/**
 * The environment switch for the query daemon, apart from the client so that bin/run.js's fast
 * path can read it before loading the client (see fast-path.ts).
 */

/** `GIT_VLT_DAEMON=0` (or false, off, no) keeps every query in process and starts no daemon. */
const DAEMON_ENV = 'GIT_VLT_DAEMON'

export function daemonDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['0', 'false', 'off', 'no'].includes((env[DAEMON_ENV] ?? '').trim().toLowerCase())
}
