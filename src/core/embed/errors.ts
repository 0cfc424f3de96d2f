import { VltError } from '../errors.js'

/** Why embeddings could not be had; search reports it once and falls back to its other paths. */
export type EmbeddingFailureKind = 'unreachable' | 'auth' | 'timeout' | 'rate-limit' | 'bad-response' | 'server' | 'local-model'

/** The embedding endpoint failed in a way retrying now will not fix. The message is one line, fit for a warning. */
export class EmbeddingUnavailableError extends VltError {
  constructor(readonly kind: EmbeddingFailureKind, message: string) {
    super(message.replace(/\s+/g, ' ').trim())
    this.name = 'EmbeddingUnavailableError'
  }
}
