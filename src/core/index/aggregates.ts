/**
 * The per-tree aggregates: BM25 index, symbol table and code graph. One set per git tree; an
 * incremental build loads its parent tree's set, patches the changed paths, `finish()`es and
 * saves under the new tree (the parent's files are never rewritten).
 *
 * A loaded set decodes each part on first access: a definition lookup needs only the symbol
 * table, and on a 10k-file tree decoding all three parts costs several times a query's budget.
 * A build's load reads and checksums the symbol table and graph whole, so damage is found where
 * callers handle it (by rebuilding). A query over a stored tree opens the symbol table and the
 * graph instead (graph/symbols-file.ts, graph/graph-file.ts) and reads the blocks it needs; damage
 * it finds then is handled by `markDamaged` (damage.ts). The BM25 index is always stored in blocks a query reads on demand
 * (search/stored.ts): loading checks its header and tables only, and a damaged block is found by the
 * query that reads it, which rebuilds the index (`Bm25Recovery`).
 */
import { join } from 'node:path'
import { totalmem } from 'node:os'
import { checkStoredTable, CodeGraph, encodeRankedGraph, encodeSymbolsFile, GraphFile, GRAPH_VERSION, layOver, packGraphEdges, SymbolsFile, SymbolTable, SYMBOLS_VERSION, type LaidFiles, type LaidParts, type PackedEdges, type SnapshotRows } from '../graph/index.js'
import { Bm25Index, StoredPostings, type Bm25Recovery, type StoredRun } from '../search/index.js'
import { checkRecordFileSync, confinedRoots, faultFromJSON, openFramedSync, ScratchFile, writeFileAtomic, writeFramedSync } from '../store/index.js'
import { CorruptFileError } from '../errors.js'
import type { BlobSummary } from './blob-task.js'
import { foundWhole, isNotedDamaged } from './damage.js'
import { startWorker } from './pool.js'

export const BM25_RECORD_KIND = 'bm25'
/** 2: blocks read on demand, documents numbered by path (search/stored.ts); 1 was one msgpack snapshot. */
export const BM25_RECORD_VERSION = 2
export const SYMBOLS_RECORD_KIND = 'symbols'
/**
 * 2: version 1 tables may lack references dropped by a buffer bug (graph/file-symbols.ts), so they are rebuilt.
 * 3: laid out in blocks a query reads by name (graph/symbols-file.ts).
 * 4: each fact once, blocks compressed: runs of files instead of the whole table, buckets naming definitions instead of spelling them out.
 */
export const SYMBOLS_RECORD_VERSION = SYMBOLS_VERSION
export const GRAPH_RECORD_KIND = 'graph'
/** 4: edges in blocks per slice of files. 3: ranks per slice of files. 2: ranks apart from the edges, blocks compressed (graph/graph-file.ts); 1 was one msgpack snapshot. */
export const GRAPH_RECORD_VERSION = GRAPH_VERSION

export type IndexedSummary = Extract<BlobSummary, { skipped?: undefined }>

export interface TreeAggregates {
  /**
   * A set opened for a query (loadAggregates' `open`) takes the files added and removed before any
   * part is read as laid over its stored parts (graph/lay-over.ts): a query reads the stored blocks
   * it needs and the laid files' rows, and nothing is loaded whole or ranked again unless a query
   * needs all of it. Otherwise each change is applied, the parts read whole first.
   */
  addFile(path: string, summary: IndexedSummary): void
  removeFile(path: string): void
  /** Resolves the imports and edges the changes affect and recomputes PageRank; once per build (files laid over: nothing to do). */
  finish(): void
  /**
   * `finish()` for a build about to save the set and drop it: `edgesResolved` is given the graph
   * once its edges are resolved, to write them out; they are let go of once regrouped for PageRank,
   * before ranking (see finishAndSave).
   */
  finishSpent(edgesResolved: (graph: CodeGraph) => Promise<void>): Promise<{ edges: number }>
  stats(): { edges: number; nodes: number; symbols: number }
  /** Each part of a loaded set is decoded on first access. */
  readonly bm25: Bm25Index
  /**
   * Parts of the BM25 index a cold build wrote out past its memory budget (see `createAggregates`),
   * merged into it when it is saved; `bm25` holds the files since the last.
   */
  readonly bm25Runs: readonly ScratchFile[]
  /** Removes the runs; a build that saved or failed is done with them. */
  dropBm25Runs(): void
  readonly symbols: SymbolTable
  readonly graph: CodeGraph
}

interface PartLoaders {
  bm25: () => Bm25Index
  symbols: () => SymbolTable
  graph: (symbols: SymbolTable) => CodeGraph
  /** A set opened for a query: the stored table and graph with files laid over them. */
  layOver?: (laid: LaidFiles) => LaidParts
}

type Bm25Change = { path: string; analyzed: IndexedSummary['analyzed'] | null }

/** Where a cold build's BM25 index goes past `memoryBytes`: runs beside the bm25.mpk of `treeDir`, the tree being built. */
export interface Bm25Spill {
  memoryBytes: number
  treeDir: string
}

class Aggregates implements TreeAggregates {
  readonly bm25Runs: ScratchFile[] = []
  private bm25Part: Bm25Index | undefined
  private symbolsPart: SymbolTable | undefined
  private graphPart: CodeGraph | undefined
  /** Changes made before the BM25 index was first needed, replayed when it is. */
  private bm25Pending: Bm25Change[] = []
  /** Files added (or removed: null) in a set opened for a query before its table or graph was read: laid over them (see TreeAggregates.addFile). */
  private readonly laid = new Map<string, IndexedSummary | null>()
  private laidParts: LaidParts | undefined

  constructor(private readonly loaders: PartLoaders, private readonly spill?: Bm25Spill) {}

  get bm25(): Bm25Index {
    if (!this.bm25Part) {
      const bm25 = this.loaders.bm25()
      for (const change of this.bm25Pending) {
        bm25.removeFile(change.path)
        if (change.analyzed) bm25.addFile(change.path, change.analyzed)
      }
      this.bm25Pending = []
      this.bm25Part = bm25
    }
    return this.bm25Part
  }

  get symbols(): SymbolTable {
    this.symbolsPart ??= this.laidOver()?.symbols ?? this.loaders.symbols()
    return this.symbolsPart
  }

  get graph(): CodeGraph {
    this.graphPart ??= this.laidOver()?.graph() ?? this.loaders.graph(this.symbols)
    return this.graphPart
  }

  /** The table and graph with the laid files over them, made on first use; undefined when nothing is laid over. */
  private laidOver(): LaidParts | undefined {
    if (!this.laidParts && this.laid.size > 0 && this.loaders.layOver) this.laidParts = this.loaders.layOver(this.laid)
    return this.laidParts
  }

  /** Changes are laid over the stored parts rather than applied: a set opened for a query whose table and graph nothing has read yet. */
  private get laying(): boolean {
    return this.loaders.layOver !== undefined && this.symbolsPart === undefined && this.graphPart === undefined
  }

  addFile(path: string, summary: IndexedSummary): void {
    if (this.laying) {
      this.laid.set(path, summary)
      this.bm25Change({ path, analyzed: summary.analyzed })
      return
    }
    this.beforeChange()
    if (this.bm25Part) {
      this.bm25Part.addFile(path, summary.analyzed)
      if (this.spill && this.bm25Part.memoryBytes > this.spill.memoryBytes) {
        this.bm25Runs.push(writeBm25Run(paths(this.spill.treeDir).bm25, this.bm25Part))
        this.bm25Part = new Bm25Index()
      }
    } else this.bm25Pending.push({ path, analyzed: summary.analyzed })
    this.symbols.addFile(path, summary)
  }

  dropBm25Runs(): void {
    for (const run of this.bm25Runs.splice(0)) run.close()
  }

  removeFile(path: string): void {
    // A file written out in a run stays there: see createAggregates.
    if (this.bm25Runs.length > 0) throw new Error(`bm25: ${path} cannot be removed from a build that wrote runs`)
    if (this.laying) {
      this.laid.set(path, null)
      this.bm25Change({ path, analyzed: null })
      return
    }
    this.beforeChange()
    this.bm25Change({ path, analyzed: null })
    this.symbols.removeFile(path)
  }

  /** A change to the BM25 index: made, or kept until the index is first needed. */
  private bm25Change(change: Bm25Change): void {
    if (!this.bm25Part) this.bm25Pending.push(change)
    else if (change.analyzed) this.bm25Part.addFile(change.path, change.analyzed)
    else this.bm25Part.removeFile(change.path)
  }

  finish(): void {
    // Laid over: the views are made when a part is first read.
    if (this.laying) return
    const changes = this.symbols.commit()
    // An unloaded graph has seen no change (beforeChange loads it): its stored edges and ranks hold.
    if (this.graphPart) this.graphPart.update(changes)
  }

  async finishSpent(edgesResolved: (graph: CodeGraph) => Promise<void>): Promise<{ edges: number }> {
    const changes = this.symbols.commit()
    // As in finish(): an unloaded graph has seen no change, its stored ranks hold.
    const changed = this.graphPart !== undefined
    const graph = this.graph
    if (changed) graph.resolve(changes)
    const edges = graph.edgeCount
    // Written out before they are regrouped: packing them (blocks in flight, the table's string
    // numbering) then holds neither PageRank's arrays nor the node numbering beside them.
    await edgesResolved(graph)
    if (changed) graph.prepareRanking()
    graph.releaseEdges()
    if (changed) graph.rankNodes()
    return { edges }
  }

  stats(): { edges: number; nodes: number; symbols: number } {
    return { edges: this.graph.edgeCount, nodes: this.graph.nodeCount, symbols: this.symbols.symbolCount }
  }

  /** A stored graph describes the symbol table as stored, so it must be read before the table changes. */
  private beforeChange(): void {
    this.graph.load()
  }
}

/**
 * An empty set, for a build from scratch. With `spill`, the BM25 index is bounded in memory: past
 * `spill.memoryBytes` the files indexed so far are written out as a run (in the stored layout,
 * terms sorted) and the build goes on with an empty index; saving merges the runs term by term
 * (search/stored.ts), so the bytes stored are those one index of every file would give. Files are
 * never removed from such a set (each path comes once), so no run needs patching.
 */
export function createAggregates(spill?: Bm25Spill): TreeAggregates {
  const symbols = new SymbolTable()
  const aggregates = new Aggregates({ bm25: () => new Bm25Index(), symbols: () => symbols, graph: () => new CodeGraph(symbols) }, spill)
  // An empty index costs nothing to create: files go straight into its compact postings instead
  // of waiting, analysed chunks and all, in the pending list a loaded set needs.
  void aggregates.bm25
  return aggregates
}

function paths(treeDir: string): { bm25: string; symbols: string; graph: string } {
  return { bm25: join(treeDir, 'bm25.mpk'), symbols: join(treeDir, 'symbols.mpk'), graph: join(treeDir, 'graph.mpk') }
}

/** The files of a tree's stored aggregates, with the kind and version of each record. */
export function aggregateFiles(treeDir: string): Array<{ path: string; kind: string; version: number }> {
  const files = paths(treeDir)
  return [
    { path: files.bm25, kind: BM25_RECORD_KIND, version: BM25_RECORD_VERSION },
    { path: files.symbols, kind: SYMBOLS_RECORD_KIND, version: SYMBOLS_RECORD_VERSION },
    { path: files.graph, kind: GRAPH_RECORD_KIND, version: GRAPH_RECORD_VERSION },
  ]
}

/**
 * Throws CorruptFileError when a file is missing, damaged or of another version (the caller
 * rebuilds). Every file is checked whole, unless `open`: for a query answering from the tree as
 * stored, the symbol table is opened, not read (its header and block directory are checked here,
 * each block when a lookup reads it), and so is the graph, on first use; the BM25 index is opened
 * when first read (its tables checked then, damage there rebuilt by `recovery`).
 * Damage a query finds later is handled by `markDamaged` (damage.ts); `recovery` rebuilds the BM25 index when a
 * query finds a block of it damaged.
 */
export async function loadAggregates(treeDir: string, opts: { open?: boolean; recovery?: Bm25Recovery } = {}): Promise<TreeAggregates> {
  const files = paths(treeDir)
  // A file a query found damaged (damage.ts) is checked whole until it passes (the caller rebuilds it).
  const whole = (path: string): boolean => !opts.open || isNotedDamaged(path)
  // Checked whole, a megabyte at a time (Linux's symbol table is 273 MB: never read at once only to
  // be checked), or left to the checksums of their directories and blocks.
  if (whole(files.symbols)) checkRecordFileSync(files.symbols, SYMBOLS_RECORD_KIND, SYMBOLS_RECORD_VERSION)
  if (whole(files.graph)) checkRecordFileSync(files.graph, GRAPH_RECORD_KIND, GRAPH_RECORD_VERSION)
  foundWhole(files.symbols)
  foundWhole(files.graph)
  const symbols = SymbolsFile.open(files.symbols)
  // A build finds damage where it loads; a query opens the BM25 index when it first reads it.
  const bm25 = opts.open ? undefined : openBm25(files.bm25)
  return new Aggregates({
    // Checksummed once, above (or on first use): decoding only unpacks.
    bm25: () => (bm25 ? Bm25Index.fromStored(bm25, opts.recovery) : openedBm25(files.bm25, opts.recovery)),
    symbols: () => SymbolTable.open(symbols),
    graph: (table) => CodeGraph.open(GraphFile.open(files.graph), table),
    ...(opts.open ? { layOver: (laid: LaidFiles) => layOver(symbols, () => GraphFile.open(files.graph), laid) } : {}),
  })
}

/**
 * What `verify` decodes of a tree's aggregates, whose files passed their whole-file checks: every
 * block of the BM25 index, the symbol table and the graph read and checked in turn, the graph
 * against the table, one block held at a time (decoding the table and graph whole, as a build does,
 * held 2.15 GB on Linux). Throws CorruptFileError.
 */
export function checkStoredAggregates(treeDir: string): void {
  const files = paths(treeDir)
  const bm25 = openBm25(files.bm25)
  try {
    bm25.checkBlocks()
  } finally {
    bm25.close()
  }
  const symbols = SymbolsFile.open(files.symbols)
  GraphFile.open(files.graph).checkBlocks(checkStoredTable(symbols))
}

/**
 * One part at a time, each encoded a block at a time as it is written: holding their snapshots
 * and encodings at once made saving the peak of a whole cold build's memory. The graph goes
 * first, once the symbol table's strings are numbered as stored (its edges name them).
 * `bm25Written`: the BM25 part is being written by a thread of its own (see `finishAndSave`),
 * waited for instead of written here.
 */
export async function saveAggregates(treeDir: string, aggregates: TreeAggregates, opts: { bm25Written?: Promise<void> } = {}): Promise<void> {
  const files = paths(treeDir)
  const stored = storedRows(aggregates.symbols)
  const edgesSpool = new ScratchFile(`${files.graph}.edges`)
  try {
    await saveGraph(files.graph, aggregates.graph, await packGraphEdges(aggregates.symbols.fileCount, aggregates.graph.storedEdges(), { spool: edgesSpool }))
  } finally {
    edgesSpool.close()
  }
  await saveRest(files, aggregates, stored.rows, opts.bm25Written)
}

/** The symbol table's rows as stored, every string numbered (see numberStrings): the graph's edges name them by those numbers. */
function storedRows(symbols: SymbolTable): { rows: SnapshotRows; remap: Int32Array } {
  const stored = symbols.rows()
  numberStrings(stored.rows)
  return stored
}

/** What saving writes after the graph: the symbol table, then the BM25 index (or waits for the thread writing it). */
async function saveRest(files: ReturnType<typeof paths>, aggregates: TreeAggregates, rows: SnapshotRows, bm25Written: Promise<void> | undefined): Promise<void> {
  await saveSymbols(files.symbols, rows)
  if (bm25Written) await bm25Written
  else writeBm25(files.bm25, aggregates.bm25, aggregates.bm25Runs)
}

/**
 * The stored BM25 index of a query, opened when first read: `def` and `refs` read no posting, and
 * opening reads and checks the file table, the document lengths and the dictionary index (Linux:
 * megabytes). Damage found then is rebuilt as a damaged block is, from `recovery`'s files.
 */
function openedBm25(path: string, recovery?: Bm25Recovery): Bm25Index {
  let stored: StoredPostings
  try {
    stored = openBm25(path)
  } catch (error) {
    if (!(error instanceof CorruptFileError) || !recovery) throw error
    return Bm25Index.rebuild(recovery, error)
  }
  return Bm25Index.fromStored(stored, recovery)
}

/** The stored BM25 index at `path`, its header and tables checked (CorruptFileError otherwise). */
export function openBm25(path: string): StoredPostings {
  const { fd, start, end } = openFramedSync(path, BM25_RECORD_KIND, BM25_RECORD_VERSION)
  return new StoredPostings(fd, start, end, path)
}

/**
 * Writes `index`, merged with `runs` (see `createAggregates`), in its stored layout
 * (search/stored.ts) as the record at `path`. The dictionary and postings, most of its bytes, go to
 * scratch files as they are encoded and from there into the record: they come after the dictionary
 * index, which is only known once they are all encoded, so the layout was held in memory whole
 * before (40 MB at Linux 10k, beside the index it was encoded from).
 */
export function writeBm25(path: string, index: Bm25Index, runs: readonly StoredRun[] = []): void {
  const dict = new ScratchFile(`${path}.dict`)
  const postings = new ScratchFile(`${path}.postings`)
  try {
    writeFramedSync(path, BM25_RECORD_KIND, BM25_RECORD_VERSION, index.storedLayout({ dict, postings }, runs))
  } finally {
    dict.close()
    postings.close()
  }
}

/** Writes `index` out as a run beside `target` (see `createAggregates`). */
function writeBm25Run(target: string, index: Bm25Index): ScratchFile {
  const run = new ScratchFile(`${target}.run`)
  const dict = new ScratchFile(`${target}.dict`)
  const postings = new ScratchFile(`${target}.postings`)
  try {
    for (const part of index.storedLayout({ dict, postings }).parts) run.write(part)
    return run
  } catch (error) {
    run.close()
    throw error
  } finally {
    dict.close()
    postings.close()
  }
}

/**
 * A budget of `[index] memory_mb` in bytes: 0 sizes it to the machine, an eighth of its memory and
 * at most 64 MB. More buys little: a run costs its write and a share of the final merge, both
 * small beside indexing its files, while a larger budget is memory held through the whole build
 * (at a gigabyte, Linux 10k never spilled and peaked about 120 MB higher; Linux full held all of it).
 */
export function bm25MemoryBytes(memoryMb: number): number {
  return (memoryMb || Math.min(DEFAULT_BM25_MB, Math.floor(totalmem() / 8 / 2 ** 20))) * 2 ** 20
}

const DEFAULT_BM25_MB = 64

/**
 * A build's last steps: `finish()`, then `saveAggregates`, in an order that holds less at once: the
 * graph's edges are packed (to a scratch file) as soon as they are resolved and let go of before
 * PageRank runs, and the graph is let go of once written, before the symbol table is encoded. A
 * large BM25 index is written on a worker thread meanwhile (see `writeBm25Aside`), which never
 * outlives this call, error or not; `bm25First`: before the graph's work instead, for a large tree
 * whose memory peak that overlap would be.
 * `beside`: work of the caller's run beside the saving once the BM25 index is written (the thread
 * writing it is done, and with it most of what it held; at once without one), waited for before
 * this returns; it must not reject. The aggregates are spent afterwards (their graph is emptied
 * once written): the caller drops them.
 */
export async function finishAndSave(treeDir: string, aggregates: TreeAggregates, opts: { asideFrom?: number; beside?: () => Promise<void>; bm25First?: boolean } = {}): Promise<{ edges: number }> {
  const asideFrom = opts.asideFrom ?? BM25_ASIDE_DOCS
  const bm25Written = aggregates.bm25.docCount >= asideFrom || aggregates.bm25Runs.length > 0 ? writeBm25Aside(treeDir, aggregates) : undefined
  // Handled from the start: a failure is reported where saveAggregates waits for it, not as unhandled meanwhile.
  bm25Written?.catch(() => {})
  // Not started when the BM25 index could not be written: the build fails.
  const beside = opts.beside ? (bm25Written ?? Promise.resolve()).then(opts.beside) : undefined
  beside?.catch(() => {})
  const files = paths(treeDir)
  let edgesSpool: ScratchFile | undefined
  try {
    // Its merge and the graph's resolution and ranking each add a few hundred megabytes, and together
    // they were a large tree's memory peak (Linux full: 1,546–1,577 MiB, the main thread alone 1,414).
    if (opts.bm25First) await bm25Written
    let stored: { rows: SnapshotRows; remap: Int32Array } | undefined
    let packed: PackedEdges | undefined
    // The graph's edges are written out as soon as they are resolved, and let go of before PageRank (see finishSpent).
    const { edges } = await aggregates.finishSpent(async (graph) => {
      stored = storedRows(aggregates.symbols)
      edgesSpool = new ScratchFile(`${files.graph}.edges`)
      packed = await packGraphEdges(aggregates.symbols.fileCount, graph.storedEdges(), { spool: edgesSpool })
    })
    aggregates.graph.releaseRanking()
    await saveGraph(files.graph, aggregates.graph, packed!)
    edgesSpool!.close()
    // Let go of before the table is encoded: the ranks and node numbering (Linux: tens of megabytes).
    aggregates.graph.release()
    await saveRest(files, aggregates, stored!.rows, bm25Written)
    await beside
    return { edges }
  } finally {
    edgesSpool?.close()
    await Promise.all([bm25Written?.catch(() => {}), beside?.catch(() => {})])
    aggregates.dropBm25Runs()
  }
}

/** From this many chunks on, `writeBm25Aside` pays for its thread (about a tenth of a second to start). */
const BM25_ASIDE_DOCS = 20_000

/**
 * Writes the BM25 part of `saveAggregates` on a worker thread, started before the graph's
 * `finish()`: sealing and encoding a 10k-file index takes about a second of one core at the end
 * of a cold build, with the other core idle. The index moves to the worker (its arrays are
 * transferred, not copied), so `aggregates.bm25` is empty afterwards. It goes in `workerData`
 * rather than as a WorkerPool task (as learn-worker.ts does): posted as a task, it raised the
 * peak RSS of a Linux 10k init from 843–871 MB to 925–962 MB.
 */
function writeBm25Aside(treeDir: string, aggregates: TreeAggregates): Promise<void> {
  const { parts, transfer } = aggregates.bm25.handOff()
  const entry = new URL(import.meta.url.endsWith('.ts') ? './bm25-writer.ts' : './bm25-writer.js', import.meta.url)
  // The runs stay this thread's to remove (finishAndSave does, once the writer is done).
  const runs = aggregates.bm25Runs.map((run) => run.shared())
  // The thread writes confined to the roots this one knows (store/confine.ts).
  const worker = startWorker(entry, { workerData: { roots: confinedRoots(), path: paths(treeDir).bm25, parts, runs }, transferList: transfer })
  return new Promise((resolve, reject) => {
    let answered = false
    worker.once('message', (answer: { ok: boolean; error?: string; fault?: unknown }) => {
      answered = true
      if (answer.ok) resolve()
      else reject(faultFromJSON(answer.fault) ?? new Error(`could not write the BM25 index: ${answer.error}`))
    })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the BM25 writer thread exited with code ${code}`))
    })
  })
}

/**
 * Numbers every string of `rows` as stored (see SnapshotRows: by first use over files in path
 * order, as their columns are first taken), so that the remapping `rows` came with is complete.
 */
function numberStrings(rows: SnapshotRows): void {
  for (let from = 0; from < rows.paths.length; from += NUMBERING_FILES) rows.columns(from, Math.min(rows.paths.length, from + NUMBERING_FILES))
}

/** Files whose columns `numberStrings` takes at a time: a few megabytes of rows. */
const NUMBERING_FILES = 1024

/**
 * Writes the symbol table. Its blocks are spooled to a scratch file beside it as they are packed
 * (see encodeSymbolsFile), and removed once written or on failure.
 */
async function saveSymbols(path: string, rows: SnapshotRows): Promise<void> {
  const spool = new ScratchFile(`${path}.blocks`)
  try {
    await writeFileAtomic(path, await encodeSymbolsFile(rows, { spool }))
  } finally {
    spool.close()
  }
}

/** Writes the graph, its ranks spooled to a scratch file beside it as they are packed, after `edges` (see encodeRankedGraph). */
async function saveGraph(path: string, graph: CodeGraph, edges: PackedEdges): Promise<void> {
  const spool = new ScratchFile(`${path}.blocks`)
  try {
    await writeFileAtomic(path, await encodeRankedGraph({ bases: graph.nodeBases(), ranks: graph.nodeRanks() }, edges, { spool }))
  } finally {
    spool.close()
  }
}
