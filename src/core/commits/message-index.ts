/**
 * BM25 over commit messages, built in memory when the commit index is loaded (11,000 messages
 * take well under a second). A commit's document is its subject (counted twice: it is the
 * summary), its body, and the names of the functions its hunks touched — so "fix the retry delay"
 * finds the commit that changed `compute_retry_delay` even when its message said "backoff".
 */
import { analyzeFields, analyzeQuery, BM25_B, BM25_K1 } from '../search/index.js'

/** Field weights of a commit's document. */
export const MESSAGE_FIELD_WEIGHTS = { subject: 2, body: 1, symbols: 1 } as const

export interface MessageDoc {
  subject: string
  body: string
  symbols: readonly string[]
}

export interface MessageHit {
  /** Position of the document as added. */
  doc: number
  score: number
}

export class MessageIndex {
  private readonly terms = new Map<string, number>()
  private postingDocs: Int32Array[] = []
  private postingTfs: Float32Array[] = []
  private lengths: Float32Array
  private averageLength = 1

  constructor(documents: readonly MessageDoc[]) {
    const lists: Array<{ docs: number[]; tfs: number[] }> = []
    this.lengths = new Float32Array(documents.length)
    let total = 0
    documents.forEach((doc, i) => {
      const counts = analyzeFields([
        [doc.subject, MESSAGE_FIELD_WEIGHTS.subject],
        [doc.body, MESSAGE_FIELD_WEIGHTS.body],
        [doc.symbols.join(' '), MESSAGE_FIELD_WEIGHTS.symbols],
      ])
      counts.terms.forEach((term, k) => {
        let id = this.terms.get(term)
        if (id === undefined) {
          id = lists.length
          this.terms.set(term, id)
          lists.push({ docs: [], tfs: [] })
        }
        lists[id]!.docs.push(i)
        lists[id]!.tfs.push(counts.tfs[k]!)
      })
      this.lengths[i] = counts.length
      total += counts.length
    })
    this.averageLength = documents.length > 0 ? Math.max(1, total / documents.length) : 1
    this.postingDocs = lists.map((list) => Int32Array.from(list.docs))
    this.postingTfs = lists.map((list) => Float32Array.from(list.tfs))
  }

  get size(): number {
    return this.lengths.length
  }

  /** The `limit` best documents for `query`, best first (ties: the earlier, i.e. newer, document). */
  search(query: string, limit: number): MessageHit[] {
    const n = this.lengths.length
    if (n === 0) return []
    const scores = new Map<number, number>()
    for (const term of analyzeQuery(query)) {
      const id = this.terms.get(term)
      if (id === undefined) continue
      const docs = this.postingDocs[id]!
      const tfs = this.postingTfs[id]!
      const idf = Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5))
      for (let k = 0; k < docs.length; k++) {
        const doc = docs[k]!
        const tf = tfs[k]!
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * this.lengths[doc]!) / this.averageLength)
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (BM25_K1 + 1)) / norm)
      }
    }
    const hits: MessageHit[] = []
    for (const [doc, score] of scores) hits.push({ doc, score })
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc)
    return hits.slice(0, limit)
  }
}
