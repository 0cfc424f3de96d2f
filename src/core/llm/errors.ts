import { VltError } from '../errors.js'

/** Why the language model could not answer; callers fall back to what they can do without it. */
export type LlmFailureKind = 'unreachable' | 'auth' | 'timeout' | 'rate-limit' | 'bad-response' | 'server'

/** The LLM endpoint failed in a way retrying now will not fix. The message is one line, fit for a warning. */
export class LlmUnavailableError extends VltError {
  constructor(readonly kind: LlmFailureKind, message: string) {
    super(message.replace(/\s+/g, ' ').trim())
    this.name = 'LlmUnavailableError'
  }
}
