/** Real HTTP requests to the app's server, with every header under the test's control (fetch would set Origin, Sec-Fetch-*). */
import { request, type IncomingHttpHeaders, type ClientRequest } from 'node:http'

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
  json: any
}

export function httpRequest(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => {
        let json: unknown
        try {
          json = JSON.parse(body)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
      })
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

export interface SseEvent {
  event: string
  data: any
  /** ms since the request was sent. */
  at: number
}

/**
 * POSTs a question and collects its server-sent events; `until` may end the connection early (a
 * browser closing the tab) by returning true for an event.
 */
export function askEvents(port: number, token: string, body: unknown, until?: (event: SseEvent, events: SseEvent[]) => boolean): Promise<{ events: SseEvent[]; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const events: SseEvent[] = []
    let req: ClientRequest | undefined = undefined
    req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/ask',
        method: 'POST',
        headers: { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, 'x-vlt-token': token, 'content-type': 'application/json' },
      },
      (res) => {
        let buffer = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          buffer += chunk
          let end: number
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message'
            const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null')
            const parsed = { event, data, at: Date.now() - started }
            events.push(parsed)
            if (until?.(parsed, events)) {
              req!.destroy()
              return resolve({ events, cut: true })
            }
          }
        })
        res.on('end', () => resolve({ events, cut: false }))
      },
    )
    req.on('error', (error) => (req!.destroyed ? undefined : reject(error)))
    req.end(JSON.stringify(body))
  })
}
