/**
 * The per-attempt time limit. The SDK's own timeout stops at the response headers; this one also
 * covers reading the body, and for streams it restarts on every chunk, so a stalled stream fails
 * after `ms` of silence while a long answer that keeps flowing is never cut off.
 */
export class Deadline {
  private readonly controller = new AbortController()
  private timer: NodeJS.Timeout
  private readonly forward: () => void
  /** Whether the time ran out (rather than the caller cancelling). */
  expired = false

  constructor(private readonly ms: number, private readonly caller: AbortSignal | undefined) {
    this.forward = () => this.controller.abort(caller?.reason)
    if (caller?.aborted) this.forward()
    caller?.addEventListener('abort', this.forward, { once: true })
    this.timer = this.start()
  }

  /** Aborts when the caller cancels or the time runs out. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Progress was made: the limit starts over. */
  touch(): void {
    clearTimeout(this.timer)
    this.timer = this.start()
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.caller?.removeEventListener('abort', this.forward)
  }

  private start(): NodeJS.Timeout {
    return setTimeout(() => {
      this.expired = true
      this.controller.abort()
    }, this.ms)
  }
}
