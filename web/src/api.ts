/** Requests to the local server: every one carries this run's token (from the page's meta tag). */
const TOKEN = document.querySelector<HTMLMetaElement>('meta[name="vlt-token"]')?.content ?? ''

export class ApiError extends Error {}

export async function api<T>(path: string, params: Record<string, string | number | undefined> = {}, init: RequestInit = {}): Promise<T> {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value))
  const response = await fetch(`/api/${path}${query.size ? `?${query}` : ''}`, { ...init, headers: { 'x-vlt-token': TOKEN, ...(init.headers ?? {}) } })
  const body = (await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }))) as T & { error?: string }
  if (!response.ok) throw new ApiError(body.error ?? `${response.status}`)
  return body
}

export interface StreamEvent {
  event: string
  data: any
}

/** POSTs a question and yields the server-sent events of the answer as they arrive. */
export async function* askStream(body: unknown, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  const response = await fetch('/api/ask', {
    method: 'POST',
    headers: { 'x-vlt-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
  if (!response.ok || !response.body) {
    const error = (await response.json().catch(() => ({}))) as { error?: string }
    throw new ApiError(error.error ?? `${response.status} ${response.statusText}`)
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let event = 'message'
      let data = ''
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7)
        else if (line.startsWith('data: ')) data += line.slice(6)
      }
      yield { event, data: data ? JSON.parse(data) : null }
    }
  }
}
