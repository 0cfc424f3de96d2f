import { createHash } from 'node:crypto'
import type { Chunk } from '../parse/types.js'

/** Embedding models truncate long inputs anyway; 8k characters is about 2k tokens of code. */
export const MAX_EMBEDDING_CHARS = 8000
/** Imports help the model but must not crowd out the code they serve. */
const MAX_IMPORT_CHARS = 1000

/**
 * The exact text embedded for a chunk: the imports it uses, the header of its enclosing class, then
 * its body. Depends only on the chunk's content, so identical chunks in any commit or branch share
 * one cached vector.
 */
export function embeddingText(chunk: Chunk): string {
  const imports = clip(chunk.imports, MAX_IMPORT_CHARS)
  const context = [imports, chunk.classContext].filter((part) => part !== '').join('\n\n')
  const prefix = context === '' ? '' : `${context}\n\n`
  return prefix + clip(chunk.body, Math.max(0, MAX_EMBEDDING_CHARS - prefix.length))
}

/** Cache key of an embedded text: SHA-1 hex of its UTF-8 bytes. */
export function chunkHash(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

/** Cuts at a line boundary when one is near, so the model does not see half an identifier. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.lastIndexOf('\n', max)
  return text.slice(0, cut > max * 0.8 ? cut : max)
}
