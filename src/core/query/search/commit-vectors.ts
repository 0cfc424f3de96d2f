/**
 * Commit messages as vectors, for the history path when [embedding] is configured: each message
 * (subject and body) is embedded once per provider and kept in the same vector cache as chunks
 * (keyed by the text's hash, so a message is never sent twice), and the matrix of a loaded history
 * stays in memory with it. Similarity is the exact cosine, a flat scan as for chunks.
 */
import { silentProgress, type Progress } from '../../cli/progress.js'
import type { CommitHistory, SimilarCommit } from '../../commits/index.js'
import { chunkHash, embedAll, EmbeddingUnavailableError, MAX_EMBEDDING_CHARS, unitVector, VectorCache, type EmbeddingProvider } from '../../embed/index.js'
import type { QueryContext } from '../context.js'

interface MessageVectors {
  dimensions: number
  /** Row r is commit r of the history. */
  vectors: Float32Array
}

const matrices = new WeakMap<CommitHistory, Map<string, Promise<MessageVectors>>>()

export async function similarByVector(
  qctx: QueryContext,
  history: CommitHistory,
  provider: EmbeddingProvider,
  query: string,
  limit: number,
  progress: Progress = silentProgress,
): Promise<{ commits: SimilarCommit[]; warning?: string }> {
  if (history.size === 0) return { commits: [] }
  try {
    const [[queryVector], matrix] = await Promise.all([provider.embed([query]), messageVectors(qctx, history, provider, progress)])
    const q = unitVector(queryVector!)
    if (q.length !== matrix.dimensions) return { commits: [], warning: `embeddings unavailable: the query vector has ${q.length} dimensions, the commit vectors ${matrix.dimensions}; using keyword similarity for past commits` }
    const scored: SimilarCommit[] = []
    const d = matrix.dimensions
    for (let row = 0; row < history.size; row++) {
      let dot = 0
      for (let i = 0, at = row * d; i < d; i++, at++) dot += q[i]! * matrix.vectors[at]!
      if (dot > 0) scored.push({ commit: history.commits[row]!, index: row, score: dot })
    }
    scored.sort((a, b) => b.score - a.score || a.index - b.index)
    return { commits: scored.slice(0, limit) }
  } catch (error) {
    if (error instanceof EmbeddingUnavailableError) return { commits: [], warning: `embeddings unavailable (${error.kind}): ${error.message}; using keyword similarity for past commits` }
    throw error
  }
}

function messageVectors(qctx: QueryContext, history: CommitHistory, provider: EmbeddingProvider, progress: Progress): Promise<MessageVectors> {
  let byProvider = matrices.get(history)
  if (!byProvider) matrices.set(history, (byProvider = new Map()))
  let pending = byProvider.get(provider.id)
  if (!pending) {
    pending = build(qctx, history, provider, progress)
    byProvider.set(provider.id, pending)
    // A failure is not kept: the next query tries again.
    pending.catch(() => byProvider.delete(provider.id))
  }
  return pending
}

async function build(qctx: QueryContext, history: CommitHistory, provider: EmbeddingProvider, progress: Progress): Promise<MessageVectors> {
  const texts = history.commits.map((commit) => messageText(commit.subject, commit.body))
  const hashes = texts.map(chunkHash)
  const unique = new Map<string, string>()
  texts.forEach((text, i) => unique.set(hashes[i]!, text))
  const vectors = await embedAll([...unique].map(([hash, text]) => ({ hash, text })), provider, new VectorCache(qctx.index.paths, provider.id), progress)
  const dimensions = hashes.length === 0 ? 0 : vectors.get(hashes[0]!)!.length
  const matrix = new Float32Array(hashes.length * dimensions)
  hashes.forEach((hash, row) => matrix.set(unitVector(vectors.get(hash)!), row * dimensions))
  return { dimensions, vectors: matrix }
}

/** What is embedded of a commit: its message, as a developer wrote it. */
function messageText(subject: string, body: string): string {
  const text = body === '' ? subject : `${subject}\n\n${body}`
  return text.length > MAX_EMBEDDING_CHARS ? text.slice(0, MAX_EMBEDDING_CHARS) : text
}
