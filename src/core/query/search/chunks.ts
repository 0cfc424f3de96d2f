import type { Chunk, FileArtifact } from '../../parse/types.js'
import type { QueryContext } from '../context.js'
import type { ChunkKey } from './types.js'

export function chunkKeyString(key: ChunkKey): string {
  return `${key.path}#${key.chunkIndex}`
}

/**
 * The artifacts one search reads, each read (and decoded) at most once: a query touches a few
 * dozen files, and several paths ask for the same ones.
 */
export class ChunkSource {
  private readonly artifacts = new Map<string, FileArtifact | null>()

  constructor(private readonly qctx: QueryContext) {}

  artifact(path: string): FileArtifact | null {
    let artifact = this.artifacts.get(path)
    if (artifact === undefined) {
      artifact = this.qctx.artifact(path)
      this.artifacts.set(path, artifact)
    }
    return artifact
  }

  /** Reads the chunk text of these files at once (see QueryContext.prefetchText). */
  prefetchText(paths: Iterable<string>): void {
    this.qctx.prefetchText(paths)
  }

  chunk(key: ChunkKey): Chunk | undefined {
    return this.artifact(key.path)?.chunks[key.chunkIndex]
  }

  /**
   * The chunk holding `line` of `path`; with `qualifiedName`, the one about that symbol when
   * several chunks of a split definition qualify (chunks are disjoint and in line order).
   */
  chunkAt(path: string, line: number, qualifiedName?: string): ChunkKey | undefined {
    const chunks = this.artifact(path)?.chunks
    if (!chunks) return undefined
    let found = -1
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!
      if (chunk.startLine > line) break
      if (chunk.endLine >= line) {
        found = i
        break
      }
    }
    if (found < 0 && qualifiedName !== undefined) {
      // A definition line in a gap between chunks (a trimmed decorator or comment): its symbol's first chunk.
      found = chunks.findIndex((chunk) => chunk.qualifiedName === qualifiedName && chunk.startLine >= line)
    }
    return found < 0 ? undefined : { path, chunkIndex: found }
  }
}
