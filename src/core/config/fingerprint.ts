import { createHash } from 'node:crypto'
import type { VltConfig } from './types.js'

/**
 * A short hash of the settings that decide what gets indexed (`index.*`). Indexes built under
 * another fingerprint are rebuilt; provider, model or delta settings never invalidate them.
 */
export function configFingerprint(config: VltConfig): string {
  const { include, exclude, maxFileBytes, languages, textFiles } = config.index
  // Listed explicitly so the hash does not depend on key order or on fields added later by accident.
  const canonical = JSON.stringify({ include, exclude, maxFileBytes, languages: [...languages].sort(), textFiles })
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16)
}
