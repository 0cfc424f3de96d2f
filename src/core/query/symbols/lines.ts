/**
 * Source lines of an indexed file, from its artifact's chunks (the stored text), so that a
 * reference's context is the indexed content even when the working tree moved on.
 */
import type { FileArtifact } from '../../parse/types.js'

export function lineReader(artifact: FileArtifact): (line: number) => string {
  const split = new Map<number, string[]>()
  return (line) => {
    let best = -1
    for (let c = 0; c < artifact.chunks.length; c++) {
      const chunk = artifact.chunks[c]!
      if (chunk.startLine > line || chunk.endLine < line) continue
      if (best < 0 || chunk.endLine - chunk.startLine < artifact.chunks[best]!.endLine - artifact.chunks[best]!.startLine) best = c
    }
    if (best < 0) return ''
    let lines = split.get(best)
    if (!lines) split.set(best, (lines = artifact.chunks[best]!.body.split('\n')))
    return (lines[line - artifact.chunks[best]!.startLine] ?? '').trim()
  }
}
