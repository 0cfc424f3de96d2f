import { spawn } from 'node:child_process'
import { Flags } from '@oclif/core'
import { VltCommand } from '../core/cli/vlt-command.js'
import { startUiServer } from '../core/ui/index.js'

export interface UiStarted {
  url: string
  port: number
  token: string
}

export default class Ui extends VltCommand {
  static override summary = 'Serve the oracle and a code, notes and threads viewer as a local web app.'
  static override description = `Starts a web app for the repository on 127.0.0.1 (never another interface), prints its URL
and opens it in the browser (unless --no-open, or when there is no display). Ask questions and
watch the answer stream in, with the oracle's progress; stop it with Esc; pick the sources; open
the --explain trace. Citations are links: code opens in a read-only viewer on the cited lines
with their blame, commits open with message and diff, notes and threads open at the cited place.
Also: file-level code search, the repository map, index status and "sync now".

The URL carries a random token made for this run: requests without it are refused, as are
requests from other sites (Origin) and through other host names (DNS rebinding). Paths cannot
leave the repository, and credentials files are never served (credentials inside other files are
redacted, as in the index). Runs until interrupted (Ctrl-C).
"Open in editor" links use vscode://file/{path}:{line}; set GIT_VLT_EDITOR_URL to change the
pattern (e.g. idea://open?file={path}&line={line}).`

  static override examples = [
    { command: '<%= config.bin %> <%= command.id %>', description: 'Serve on a free port and open the browser.' },
    { command: '<%= config.bin %> <%= command.id %> --port 7800 --no-open', description: 'A fixed port; print the URL without opening it.' },
    {
      command: '<%= config.bin %> <%= command.id %> --no-open --json',
      description: 'Print {url, port, token} once listening (the token is part of url), then serve until interrupted.',
    },
  ]

  static override flags = {
    port: Flags.integer({ description: 'Port on 127.0.0.1 (0: any free port).', default: 0, min: 0, max: 65_535 }),
    'no-open': Flags.boolean({ description: 'Do not open the browser.' }),
  }

  /** Serves until interrupted; the `--json` object is printed when the server starts, not at the end. */
  async run(): Promise<void> {
    const { flags } = await this.parse(Ui)
    const server = await startUiServer({ cwd: this.workDir(flags), port: flags.port, warn: (message) => this.note(message) })
    const started: UiStarted = { url: server.url, port: server.port, token: server.token }
    if (this.jsonEnabled()) this.logJson(started)
    else this.log(`Serving ${server.root} at ${server.url}  (Ctrl-C to stop)`)
    if (!flags['no-open']) openBrowser(server.url)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await server.close()
  }
}

/** The desktop's own opener; without a display (ssh, CI) the printed URL is enough. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? 'xdg-open' : null
  if (!command) return
  const child = spawn(command, [url], { stdio: 'ignore', detached: true })
  child.on('error', () => {})
  child.unref()
}
