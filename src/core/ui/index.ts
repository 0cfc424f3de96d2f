/**
 * `git vlt ui`: the oracle in the browser (issue 21) — a local web app, bound to 127.0.0.1 and
 * guarded by a per-run token, with streamed answers, clickable citations and viewers of the
 * repository's code, commits, notes and threads.
 */
export { startUiServer, UI_HOST, type UiServer, type UiServerOptions } from './server.js'
export { ASSETS_DIR } from './assets.js'
export { TOKEN_HEADER, TOKEN_PARAM } from './guard.js'
