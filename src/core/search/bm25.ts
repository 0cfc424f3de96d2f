/**
 * BM25 over code chunks, grouped by file so a tree's index can be patched from its parent's:
 * remove the changed files, add the new ones.
 *
 * Three tiers: a large `base` segment, an optional small `tail` segment, and `fresh` postings
 * still in flat arrays. Removing a file only tombstones its documents; adding appends to fresh.
 * `seal()` (run by `snapshot()`) turns fresh into a segment merged with the tail, and folds the
 * tail into the base once tail and tombstones exceed a tenth of the base — so one-file patches
 * stay proportional to the change, and compaction is amortised.
 *
 * Scores are exact BM25 over live documents at every moment (tombstoned postings are skipped
 * and not counted in df), and ties break on (path, chunk index), so a patched index answers
 * exactly as one built from scratch over the same files.
 */
import { CorruptFileError } from '../errors.js'
import { analyzePath, analyzeQuery, type AnalyzedChunks } from './analyze.js'
import { FreshPostings, freshSegment, type FreshParts } from './fresh.js'
import { mergeSegments } from './merge.js'
import { eachPosting, findTerm, grow, type Segment } from './segment.js'
import { storedLayout, StoredPostings, type ScratchSink, type StoredRun } from './stored.js'
import type { SizedParts } from '../store/index.js'

export const BM25_K1 = 1.2
export const BM25_B = 0.75

export interface SearchHit {
  path: string
  /** Index of the chunk in the docs passed to `addFile` (= the file's chunk order). */
  chunkIndex: number
  score: number
}

export interface SearchOptions {
  limit: number
  /** Called only for documents that would enter the top `limit`. */
  filter?: (path: string, chunkIndex: number) => boolean
}

/**
 * Plain data for msgpackr: strings, numbers and Uint8Arrays only, because plain `pack` writes
 * other typed arrays wrongly unless `moreTypes` is on. Wider integers are little-endian bytes.
 */
export interface Bm25Snapshot {
  version: typeof SNAPSHOT_VERSION
  docEnd: number
  paths: string[]
  fileStarts: Uint8Array
  fileCounts: Uint8Array
  docLengths: Uint8Array
  segments: SegmentSnapshot[]
}

interface SegmentSnapshot {
  docBase: number
  docEnd: number
  termText: string
  termOffsets: Uint8Array
  postingStarts: Uint8Array
  docByteStarts: Uint8Array
  docBytes: Uint8Array
  tfs: Uint8Array
}

/** An index's whole state as structured-clone data, for another thread to go on with (see `handOff`). */
export interface Bm25Parts {
  segments: Segment[]
  segmentDead: number[]
  fresh: FreshParts
  docFile: Int32Array
  docLengths: Uint32Array<ArrayBuffer>
  docEnd: number
  liveDocs: number
  liveLength: number
  paths: Array<string | null>
  fileStarts: number[]
  fileCounts: number[]
}

/**
 * How a stored index is rebuilt when a query finds one of its blocks damaged: the files' chunks
 * from where they came (blob records), and what to do with the rebuilt index (store it, report).
 */
export interface Bm25Recovery {
  /** The files the stored index holds (the tree's indexed files), by path: what it is rebuilt from when its own tables cannot be read. */
  paths(): readonly string[]
  /** The analysed chunks of a stored file; undefined when they cannot be had (the damage is then thrown). */
  chunksOf(path: string): AnalyzedChunks | undefined
  rebuilt(index: Bm25Index, damage: CorruptFileError): void
}

const SNAPSHOT_VERSION = 1
/** Fresh postings beyond this are sealed before a query rather than scanned. */
const FRESH_SCAN_LIMIT = 1 << 16
/** Tail documents plus base tombstones beyond this share of the base trigger a full merge. */
const FULL_MERGE_RATIO = 0.1

export class Bm25Index {
  /**
   * The index as stored (see stored.ts), queried in place: documents [0, stored.docEnd), with no
   * segment beside it. Read into a segment once the index is sealed (a change is being saved).
   */
  private stored: StoredPostings | undefined
  private recovery: Bm25Recovery | undefined
  private segments: Segment[] = []
  /** Tombstoned documents still present in each segment's postings (drives exact df counting). */
  private segmentDead: number[] = []
  private storedDead = 0
  private fresh = new FreshPostings(0)

  /** Per document id: owning file slot (-1 = tombstone) and weighted length. */
  private docFile: Int32Array = new Int32Array(1024)
  private docLengths = new Uint32Array(1024)
  private docEnd = 0
  private liveDocs = 0
  private liveLength = 0

  /** File slots in document order; a removed file's path is null until the next seal. */
  private paths: Array<string | null> = []
  private fileStarts: number[] = []
  private fileCounts: number[] = []
  /** Slot by path, built on first need: a query of a stored index never asks (Linux: 78k paths). */
  private slotsByPath: Map<string, number> | undefined = undefined

  private get slots(): Map<string, number> {
    if (!this.slotsByPath) {
      this.slotsByPath = new Map()
      this.paths.forEach((path, slot) => {
        if (path !== null) this.slotsByPath!.set(path, slot)
      })
    }
    return this.slotsByPath
  }

  /** Query scratch, sized to docEnd. */
  private scores = new Float64Array(0)
  private touched = new Int32Array(0)

  get fileCount(): number {
    return this.slots.size
  }

  get docCount(): number {
    return this.liveDocs
  }

  /**
   * About the memory the index takes (what a build's `[index] memory_mb` bounds): its postings and
   * terms, and its per-document tables.
   */
  get memoryBytes(): number {
    let bytes = this.fresh.memoryBytes + this.docFile.byteLength + this.docLengths.byteLength
    for (const s of this.segments) bytes += s.docBytes.byteLength + s.tfs.byteLength + 2 * s.termText.length + 12 * s.termOffsets.length
    return bytes
  }

  hasFile(path: string): boolean {
    return this.slots.has(path)
  }

  /** Adds (or replaces) a file's chunks; the path's terms are folded into each chunk. */
  addFile(path: string, chunks: AnalyzedChunks): void {
    const { docs } = chunks
    this.removeFile(path)
    const slot = this.paths.length
    this.paths.push(path)
    this.fileStarts.push(this.docEnd)
    this.fileCounts.push(docs.length)
    this.slots.set(path, slot)
    if (docs.length === 0) return

    const fresh = this.fresh
    const termIds = fresh.terms.idsOf(chunks.terms)
    const pathTerms = analyzePath(path)
    const pathIds = pathTerms.terms.map((term) => fresh.terms.id(term))
    // For each blob term, which path term it also is (-1: none), so merging costs one lookup per posting.
    const pathIndex = new Int32Array(termIds.length).fill(-1)
    for (let t = 0; t < termIds.length; t++) pathIndex[t] = pathIds.indexOf(termIds[t])
    const pathSeen = new Uint8Array(pathIds.length)
    this.ensureDocCapacity(this.docEnd + docs.length)
    for (const doc of docs) {
      pathSeen.fill(0)
      for (let i = 0; i < doc.terms.length; i++) {
        const t = doc.terms[i]
        const k = pathIndex[t]
        if (k >= 0) pathSeen[k] = 1
        fresh.add(termIds[t], k >= 0 ? doc.tfs[i] + pathTerms.tfs[k] : doc.tfs[i])
      }
      for (let k = 0; k < pathIds.length; k++) if (!pathSeen[k]) fresh.add(pathIds[k], pathTerms.tfs[k])
      fresh.endDoc()
      const id = this.docEnd++
      const length = doc.length + pathTerms.length
      this.docFile[id] = slot
      this.docLengths[id] = length
      this.liveDocs++
      this.liveLength += length
    }
  }

  /** Tombstones a file's chunks; returns whether the file was indexed. */
  removeFile(path: string): boolean {
    const slot = this.slots.get(path)
    if (slot === undefined) return false
    this.slots.delete(path)
    this.paths[slot] = null
    const start = this.fileStarts[slot]
    const end = start + this.fileCounts[slot]
    for (let doc = start; doc < end; doc++) {
      this.docFile[doc] = -1
      this.liveDocs--
      this.liveLength -= this.docLengths[doc]
    }
    // Fresh postings of removed documents are skipped by their tombstone, and dropped at seal.
    const tier = this.segments.findIndex((s) => start >= s.docBase && start < s.docEnd)
    if (tier >= 0) this.segmentDead[tier] += end - start
    else if (this.stored && start < this.stored.docEnd) this.storedDead += end - start
    return true
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const terms = analyzeQuery(query)
    if (options.limit <= 0 || terms.length === 0 || this.liveDocs === 0) return []
    if (this.fresh.size > FRESH_SCAN_LIMIT) this.seal()
    if (this.scores.length < this.docEnd) {
      this.scores = new Float64Array(this.docEnd)
      this.touched = new Int32Array(this.docEnd)
    }
    const { scores, touched, docFile, docLengths, stored } = this
    let touchedCount = 0
    const n = this.liveDocs
    const tfBase = BM25_K1 * (1 - BM25_B)
    const tfPerLength = (BM25_K1 * BM25_B * n) / this.liveLength
    const freshPostings = this.freshPostingsOf(terms)
    // A stored index has no segment beside it: its postings of each term are read as one of their
    // own, all before scoring, so a damaged block (thrown) leaves no score behind.
    let storedSegments: Array<Segment | undefined> = []
    try {
      if (stored) storedSegments = terms.map((term) => stored.termSegment(term))
    } catch (error) {
      if (!(error instanceof CorruptFileError) || !this.recovery) throw error
      this.recover(error)
      return this.search(query, options)
    }

    for (let q = 0; q < terms.length; q++) {
      const storedSegment = storedSegments[q]
      const segments = stored ? (storedSegment ? [storedSegment] : []) : this.segments
      const dead = stored ? [this.storedDead] : this.segmentDead
      const found = segments.map((segment) => findTerm(segment, terms[q]))
      let df = freshPostings[q].length / 2
      for (let s = 0; s < segments.length; s++) {
        const index = found[s]
        if (index < 0) continue
        if (dead[s] === 0) df += segments[s].postingStarts[index + 1] - segments[s].postingStarts[index]
        else eachPosting(segments[s], index, (doc) => { if (docFile[doc] >= 0) df++ })
      }
      if (df === 0) continue
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      const score = (doc: number, tf: number): void => {
        if (docFile[doc] < 0) return
        if (scores[doc] === 0) touched[touchedCount++] = doc
        scores[doc] += (idf * tf * (BM25_K1 + 1)) / (tf + tfBase + tfPerLength * docLengths[doc])
      }
      for (let s = 0; s < segments.length; s++) if (found[s] >= 0) eachPosting(segments[s], found[s], score)
      const own = freshPostings[q]
      for (let k = 0; k < own.length; k += 2) score(own[k], own[k + 1])
    }

    const hits = this.topHits(touchedCount, options)
    for (let k = 0; k < touchedCount; k++) scores[touched[k]] = 0
    return hits
  }

  /**
   * The index as plain data for msgpackr. Seals fresh postings first (see the class comment), which
   * changes no result.
   */
  snapshot(): Bm25Snapshot {
    this.seal()
    const live = this.liveSlots()
    return {
      version: SNAPSHOT_VERSION,
      docEnd: this.docEnd,
      paths: live.map((slot) => this.paths[slot]!),
      fileStarts: bytesOf(Uint32Array.from(live, (slot) => this.fileStarts[slot])),
      fileCounts: bytesOf(Uint32Array.from(live, (slot) => this.fileCounts[slot])),
      docLengths: bytesOf(this.docLengths.subarray(0, this.docEnd)),
      segments: this.segments.map((segment) => ({
        docBase: segment.docBase,
        docEnd: segment.docEnd,
        termText: segment.termText,
        termOffsets: bytesOf(segment.termOffsets),
        postingStarts: bytesOf(segment.postingStarts),
        docByteStarts: bytesOf(segment.docByteStarts),
        docBytes: segment.docBytes,
        tfs: segment.tfs,
      })),
    }
  }

  /**
   * Gives this index's state away, typed arrays listed in `transfer` so that posting them to
   * another thread moves them instead of copying; this index is left empty. Sealing and encoding
   * a large index can then run beside other work (see index/aggregates.ts).
   */
  handOff(): { parts: Bm25Parts; transfer: ArrayBuffer[] } {
    this.readStored()
    const parts: Bm25Parts = {
      // A segment's term lookup table is derived: rebuilt on the first query, never moved.
      segments: this.segments.map(({ termSlots: _derived, ...segment }) => segment),
      segmentDead: this.segmentDead,
      fresh: this.fresh.toParts(),
      docFile: this.docFile,
      docLengths: this.docLengths,
      docEnd: this.docEnd,
      liveDocs: this.liveDocs,
      liveLength: this.liveLength,
      paths: this.paths,
      fileStarts: this.fileStarts,
      fileCounts: this.fileCounts,
    }
    const arrays: ArrayBufferView[] = [parts.docFile, parts.docLengths, parts.fresh.postingTerms, parts.fresh.postingTfs, parts.fresh.docEnds]
    for (const segment of parts.segments) arrays.push(segment.termOffsets, segment.postingStarts, segment.docByteStarts, segment.docBytes, segment.tfs)
    Object.assign(this, new Bm25Index())
    return { parts, transfer: [...new Set(arrays.map((array) => array.buffer as ArrayBuffer))] }
  }

  /**
   * The index in its stored layout (stored.ts), as payload parts for a record, its dictionary and
   * postings passed through `sinks`, merged with `runs` (see StoredRun: parts of the same tree's index
   * over other files). Seals everything into one segment first (see `seal`), which changes no result.
   */
  storedLayout(sinks: { dict: ScratchSink; postings: ScratchSink }, runs: readonly StoredRun[] = []): SizedParts {
    this.seal(true)
    const live = this.liveSlots()
    return storedLayout({
      segment: this.segments[0],
      docEnd: this.docEnd,
      docLengths: this.docLengths,
      paths: live.map((slot) => this.paths[slot]!),
      fileStarts: live.map((slot) => this.fileStarts[slot]),
      fileCounts: live.map((slot) => this.fileCounts[slot]),
    }, sinks, runs)
  }

  /**
   * An index over a stored one, which it now owns: queried in place until it changes and is sealed.
   * With `recovery`, a damaged block found by a query is rebuilt from the files' chunks and the
   * query answered from that; without, the CorruptFileError is thrown.
   */
  static fromStored(stored: StoredPostings, recovery?: Bm25Recovery): Bm25Index {
    const index = new Bm25Index()
    index.recovery = recovery
    const docEnd = stored.docEnd
    index.ensureDocCapacity(docEnd)
    index.docEnd = docEnd
    index.docLengths.set(stored.docLengths)
    // The stored tables stay the stored index's own: these are changed as files are removed.
    index.paths = stored.paths.slice()
    index.fileCounts = Array.from(stored.fileCounts)
    index.fileStarts = new Array<number>(index.paths.length)
    const { docFile, fileStarts, fileCounts } = index
    let doc = 0
    for (let slot = 0; slot < fileCounts.length; slot++) {
      fileStarts[slot] = doc
      for (const end = doc + fileCounts[slot]; doc < end; doc++) docFile[doc] = slot
    }
    for (let doc = 0; doc < docEnd; doc++) index.liveLength += index.docLengths[doc]
    index.liveDocs = docEnd
    index.stored = stored
    index.fresh = new FreshPostings(docEnd)
    return index
  }

  /**
   * The index of `recovery`'s files, for a stored one found damaged on opening (its header or
   * tables): rebuilt in path order, as stored, then stored and reported by `recovery`.
   */
  static rebuild(recovery: Bm25Recovery, damage: CorruptFileError): Bm25Index {
    const index = new Bm25Index()
    for (const path of recovery.paths()) {
      const chunks = recovery.chunksOf(path)
      if (!chunks) throw damage
      index.addFile(path, chunks)
    }
    recovery.rebuilt(index, damage)
    return index
  }

  /** The index `handOff` gave away. */
  static fromParts(parts: Bm25Parts): Bm25Index {
    const index = new Bm25Index()
    index.segments = parts.segments
    index.segmentDead = parts.segmentDead
    index.fresh = FreshPostings.fromParts(parts.fresh)
    index.docFile = parts.docFile
    index.docLengths = parts.docLengths
    index.docEnd = parts.docEnd
    index.liveDocs = parts.liveDocs
    index.liveLength = parts.liveLength
    index.paths = parts.paths
    index.fileStarts = parts.fileStarts
    index.fileCounts = parts.fileCounts
    return index
  }

  /** Rebuilds an index from `snapshot()`'s data; `source` names it in the error if it is malformed. */
  static fromSnapshot(data: unknown, source = 'bm25 snapshot'): Bm25Index {
    const snapshot = data as Bm25Snapshot
    const fail = (reason: string): never => {
      throw new CorruptFileError(source, reason)
    }
    if (typeof snapshot !== 'object' || snapshot === null) fail('not a bm25 snapshot')
    if (snapshot.version !== SNAPSHOT_VERSION) fail(`unknown bm25 snapshot version ${String(snapshot.version)}`)
    const index = new Bm25Index()
    const docEnd = snapshot.docEnd
    const fileStarts = uint32Of(snapshot.fileStarts, fail)
    const fileCounts = uint32Of(snapshot.fileCounts, fail)
    const docLengths = uint32Of(snapshot.docLengths, fail)
    if (!Array.isArray(snapshot.paths) || fileStarts.length !== snapshot.paths.length || fileCounts.length !== snapshot.paths.length || docLengths.length !== docEnd) {
      fail('bm25 snapshot tables disagree in size')
    }
    index.ensureDocCapacity(docEnd)
    index.docEnd = docEnd
    index.docLengths.set(docLengths)
    index.docFile.fill(-1, 0, docEnd)
    for (let slot = 0; slot < snapshot.paths.length; slot++) {
      const path = snapshot.paths[slot]
      const start = fileStarts[slot]
      const end = start + fileCounts[slot]
      if (end > docEnd) fail(`file ${path} has documents past the end`)
      index.paths.push(path)
      index.fileStarts.push(start)
      index.fileCounts.push(fileCounts[slot])
      index.slots.set(path, slot)
      for (let doc = start; doc < end; doc++) {
        index.docFile[doc] = slot
        index.liveDocs++
        index.liveLength += docLengths[doc]
      }
    }
    for (const s of snapshot.segments) {
      const termOffsets = uint32Of(s.termOffsets, fail)
      const postingStarts = uint32Of(s.postingStarts, fail)
      const docByteStarts = uint32Of(s.docByteStarts, fail)
      const docBytes = bytesCopy(s.docBytes, fail)
      const tfs = bytesCopy(s.tfs, fail)
      const terms = termOffsets.length - 1
      if (typeof s.termText !== 'string' || terms < 0 || postingStarts.length !== terms + 1 || docByteStarts.length !== terms + 1 ||
          termOffsets[terms] !== s.termText.length || postingStarts[terms] !== tfs.length ||
          docByteStarts[terms] !== docBytes.length || s.docEnd > docEnd) {
        fail('bm25 segment tables disagree in size')
      }
      const segment: Segment = {
        docBase: s.docBase,
        docEnd: s.docEnd,
        termText: s.termText,
        termOffsets,
        postingStarts,
        docByteStarts,
        docBytes,
        tfs,
      }
      let dead = 0
      for (let doc = segment.docBase; doc < segment.docEnd; doc++) if (index.docFile[doc] < 0) dead++
      index.segments.push(segment)
      index.segmentDead.push(dead)
    }
    index.fresh = new FreshPostings(docEnd)
    return index
  }

  /**
   * Moves fresh postings into a segment: merged with the tail, or with everything when the tail
   * and tombstones have grown past FULL_MERGE_RATIO of the base, or when `compact` asks for one
   * segment (to be stored). Merging renumbers the merged range's live documents densely, dropping
   * tombstones.
   */
  private seal(compact = false): void {
    this.readStored()
    const base = this.segments[0]
    if (compact && base && this.segments.length === 1 && this.segmentDead[0] === 0 && this.fresh.docs === 0) return
    const full = compact || !base || this.docEnd - base.docEnd + this.segmentDead[0] > FULL_MERGE_RATIO * (base.docEnd - base.docBase)
    if (this.fresh.docs === 0 && !full) return
    const from = full ? 0 : base.docEnd
    const { docFile, docLengths } = this
    // New ids: live documents of [from, docEnd) in order.
    const remap = new Int32Array(this.docEnd - from)
    let next = from
    for (let doc = from; doc < this.docEnd; doc++) remap[doc - from] = docFile[doc] >= 0 ? next++ : -1
    const merging = this.segments.filter((s) => s.docBase >= from)
    // Stored next: its terms laid out in the stored order, which storing then walks as they are.
    const merged = merging.length === 0
      ? freshSegment(this.fresh, from, remap, next, compact)
      : mergeSegments(merging, this.fresh, from, remap, next)
    // Sealed: the fresh postings are freed before the segment is stored or queried (a build's
    // spill encodes it next, and they were as large as it).
    this.fresh.release()

    // Compact per-document arrays in place (new ids never exceed old ones) and the file table.
    for (let doc = from; doc < this.docEnd; doc++) {
      const id = remap[doc - from]
      if (id >= 0) {
        docFile[id] = docFile[doc]
        docLengths[id] = docLengths[doc]
      }
    }
    const live = this.liveSlots()
    const slotOf = new Int32Array(this.paths.length).fill(-1)
    live.forEach((slot, k) => { slotOf[slot] = k })
    for (let doc = 0; doc < next; doc++) if (docFile[doc] >= 0) docFile[doc] = slotOf[docFile[doc]]
    this.paths = live.map((slot) => this.paths[slot])
    this.fileStarts = live.map((slot) => {
      const start = this.fileStarts[slot]
      // A file without chunks owns no id; 0 keeps it inside every range.
      if (this.fileCounts[slot] === 0) return 0
      return start >= from ? remap[start - from] : start
    })
    this.fileCounts = live.map((slot) => this.fileCounts[slot])
    this.slotsByPath = undefined

    const kept = this.segments.findIndex((s) => s.docBase >= from)
    if (kept >= 0) {
      this.segments.length = kept
      this.segmentDead.length = kept
    }
    this.segments.push(merged)
    this.segmentDead.push(0)
    this.docEnd = next
    this.fresh = new FreshPostings(next)
  }

  /**
   * Replaces the stored tier, found damaged, by the same files indexed again: added in the stored
   * order (by path), their documents get the stored ids, so tombstones and fresh postings laid over
   * the stored tier still apply.
   */
  private recover(damage: CorruptFileError): void {
    const stored = this.stored!
    const rebuilt = new Bm25Index()
    stored.paths.forEach((path, slot) => {
      const chunks = this.recovery!.chunksOf(path)
      if (!chunks || chunks.docs.length !== stored.fileCounts[slot]) throw damage
      rebuilt.addFile(path, chunks)
    })
    this.recovery!.rebuilt(rebuilt, damage)
    rebuilt.seal(true)
    this.segments = [rebuilt.segments[0]]
    this.segmentDead = [this.storedDead]
    this.stored = undefined
    this.storedDead = 0
    this.recovery = undefined
    stored.close()
  }

  /** Reads a stored index into the base segment, for a seal or a hand-off to change it. */
  private readStored(): void {
    const stored = this.stored
    if (!stored) return
    let segment: Segment
    try {
      segment = stored.toSegment()
    } catch (error) {
      if (!(error instanceof CorruptFileError) || !this.recovery) throw error
      return this.recover(error)
    }
    this.segments = [segment]
    this.segmentDead = [this.storedDead]
    this.stored = undefined
    this.storedDead = 0
    stored.close()
  }

  /** Fresh postings of each query term as [doc, tf, doc, tf, …]. */
  private freshPostingsOf(terms: string[]): number[][] {
    const lists = terms.map((): number[] => [])
    const fresh = this.fresh
    if (fresh.size === 0) return lists
    const queryOf = new Map<number, number>()
    terms.forEach((term, q) => {
      const id = fresh.terms.find(term)
      if (id >= 0) queryOf.set(id, q)
    })
    if (queryOf.size === 0) return lists
    let posting = 0
    for (let k = 0; k < fresh.docs; k++) {
      const doc = fresh.docBase + k
      const end = fresh.docEnds[k]
      if (this.docFile[doc] < 0) posting = end
      for (; posting < end; posting++) {
        const q = queryOf.get(fresh.postingTerms[posting])
        if (q !== undefined) lists[q].push(doc, fresh.postingTfs[posting])
      }
    }
    return lists
  }

  /** Best `limit` touched documents that pass the filter, by score then (path, chunk index). */
  private topHits(touchedCount: number, { limit, filter }: SearchOptions): SearchHit[] {
    const { scores, touched } = this
    const heap: number[] = []
    // `worse(a, b)`: a ranks below b.
    const worse = (a: number, b: number): boolean => {
      if (scores[a] !== scores[b]) return scores[a] < scores[b]
      return this.compareDocs(a, b) > 0
    }
    const siftDown = (at: number): void => {
      for (;;) {
        const left = 2 * at + 1
        if (left >= heap.length) return
        const right = left + 1
        const child = right < heap.length && worse(heap[right], heap[left]) ? right : left
        if (!worse(heap[child], heap[at])) return
        ;[heap[at], heap[child]] = [heap[child], heap[at]]
        at = child
      }
    }
    for (let k = 0; k < touchedCount; k++) {
      const doc = touched[k]
      if (heap.length === limit && !worse(heap[0], doc)) continue
      if (filter) {
        const slot = this.docFile[doc]
        if (!filter(this.paths[slot]!, doc - this.fileStarts[slot])) continue
      }
      if (heap.length < limit) {
        heap.push(doc)
        for (let at = heap.length - 1; at > 0; ) {
          const parent = (at - 1) >> 1
          if (!worse(heap[at], heap[parent])) break
          ;[heap[at], heap[parent]] = [heap[parent], heap[at]]
          at = parent
        }
      } else {
        heap[0] = doc
        siftDown(0)
      }
    }
    heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
    return heap.map((doc) => {
      const slot = this.docFile[doc]
      return { path: this.paths[slot]!, chunkIndex: doc - this.fileStarts[slot], score: scores[doc] }
    })
  }

  private compareDocs(a: number, b: number): number {
    const pathA = this.paths[this.docFile[a]]!
    const pathB = this.paths[this.docFile[b]]!
    if (pathA !== pathB) return pathA < pathB ? -1 : 1
    return a - b
  }

  private liveSlots(): number[] {
    const live: number[] = []
    for (let slot = 0; slot < this.paths.length; slot++) if (this.paths[slot] !== null) live.push(slot)
    return live
  }

  private ensureDocCapacity(size: number): void {
    if (size <= this.docFile.length) return
    const capacity = Math.max(size, this.docFile.length * 2)
    this.docFile = grow(this.docFile, capacity)
    this.docLengths = grow(this.docLengths, capacity)
  }
}

function bytesOf(array: Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength)
}

/** Copies so the result is aligned and owns its memory (unpacked bins may view the file buffer). */
function uint32Of(bytes: unknown, fail: (reason: string) => never): Uint32Array {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength % 4 !== 0) fail('bm25 snapshot field is not a uint32 table')
  const array = bytes as Uint8Array
  const copy = new Uint8Array(array.byteLength)
  copy.set(array)
  return new Uint32Array(copy.buffer)
}

function bytesCopy(bytes: unknown, fail: (reason: string) => never): Uint8Array {
  if (!(bytes instanceof Uint8Array)) fail('bm25 snapshot field is not bytes')
  const copy = new Uint8Array((bytes as Uint8Array).byteLength)
  copy.set(bytes as Uint8Array)
  return copy
}
