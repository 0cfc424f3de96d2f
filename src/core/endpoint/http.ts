/**
 * The HTTP both OpenAI-compatible clients speak: a JSON POST, answered with JSON or with
 * server-sent events. Node's fetch is all it takes (the openai SDK was 20 MB installed for these
 * two requests). Failures come out as the kinds the clients tell apart: an HTTP error status, no
 * connection, the time running out, an error event inside a stream.
 */

export interface EndpointRequest {
  /** e.g. https://openrouter.ai/api/v1 */
  baseUrl: string
  /** e.g. /chat/completions */
  path: string
  apiKey: string | undefined
  /** Sent as JSON with a POST; a GET when undefined. */
  body?: unknown
  /** Until the answer's headers (a stream) or its whole body (JSON). */
  timeoutMs: number
  signal?: AbortSignal
}

/** An HTTP error status; `serverMessage` is the server's own explanation, when it gave one. */
export class EndpointStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly serverMessage: string | undefined,
  ) {
    super(`HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`)
  }
}

/** No answer at all: refused, unresolvable, reset before the headers. `cause` is fetch's error. */
export class EndpointConnectionError extends Error {}

/** `timeoutMs` passed before the answer (or, for JSON, its body) arrived. */
export class EndpointTimeoutError extends Error {}

/** An error event inside a stream: the server gave up mid-answer. */
export class EndpointStreamError extends Error {}

/** Sends the request and returns the JSON answer (a body that is not JSON throws SyntaxError). */
export async function requestJson(request: EndpointRequest): Promise<unknown> {
  return exchange(request, async (response) => JSON.parse(await response.text()) as unknown)
}

/** Sends the request asking for server-sent events; yields each event's data, parsed, until `[DONE]`. */
export async function* postEvents(request: EndpointRequest): AsyncGenerator<unknown> {
  const response = await exchange(request, async (response) => response)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  let data: string[] = []
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffered += value
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '')
        buffered = buffered.slice(newline + 1)
        if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5))
        if (line !== '' || data.length === 0) continue
        const text = data.join('\n')
        data = []
        if (text === '[DONE]') return
        const event = JSON.parse(text) as { error?: { message?: unknown } | string }
        if (event && typeof event === 'object' && event.error !== undefined) {
          const message = typeof event.error === 'string' ? event.error : event.error?.message
          throw new EndpointStreamError(typeof message === 'string' ? message : JSON.stringify(event.error))
        }
        yield event
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

async function exchange<T>(request: EndpointRequest, read: (response: Response) => Promise<T>): Promise<T> {
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(new EndpointTimeoutError(`no answer within ${request.timeoutMs} ms`)), request.timeoutMs)
  // The caller's abort reaches fetch and the body it streams through the timeout's controller
  // (AbortSignal.any would do this but needs Node 20.3, and engines says 20).
  const caller = request.signal
  if (caller?.aborted) timeout.abort(caller.reason)
  else caller?.addEventListener('abort', () => timeout.abort(caller.reason), { once: true })
  const signal = timeout.signal
  try {
    const post = request.body !== undefined
    const response = await fetch(`${request.baseUrl.replace(/\/+$/, '')}${request.path}`, {
      method: post ? 'POST' : 'GET',
      headers: {
        ...(post ? { 'content-type': 'application/json' } : {}),
        accept: 'application/json',
        // Keyless local servers ignore whatever is sent; the SDK sent this too.
        authorization: `Bearer ${request.apiKey ?? 'none'}`,
      },
      ...(post ? { body: JSON.stringify(request.body) } : {}),
      signal,
    })
    if (!response.ok) throw new EndpointStatusError(response.status, response.headers, errorMessage(await response.text().catch(() => '')))
    return await read(response)
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason
    if (timeout.signal.aborted) throw timeout.signal.reason
    if (error instanceof EndpointStatusError || error instanceof SyntaxError) throw error
    throw new EndpointConnectionError(error instanceof Error ? error.message : String(error), { cause: error })
  } finally {
    clearTimeout(timer)
  }
}

/** The message of an error body (`{error: {message}}`, `{error: "…"}`, `{message}`), else its text. */
function errorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message)
    if (typeof message === 'string') return message
  } catch {
    // Not JSON: the text itself.
  }
  return text.trim() || undefined
}
