/**
 * Which secret-rule keywords occur in a text, the way gitleaks prefilters its rules: a rule runs
 * only on text whose lowercased form contains one of its keywords. One pass over the text through
 * an Aho–Corasick automaton of all the keywords (ASCII letters folded to lowercase; keywords are
 * ASCII, checked on construction), one table step per character. A search per keyword, or one
 * regex of them all, ran at 3 to 30 MB/s on Linux sources (V8 has no multi-string search); the
 * hashed pairs, triples and quads this replaces ran at about 350 MB/s, cleared 192 KB of tables
 * per file, and let a hash collision run a rule for nothing.
 */
export class KeywordIndex {
  /** Each keyword ending at a state, through its failure links: by the state's output id - 1. */
  private readonly endings: string[][] = []
  /**
   * The automaton, one row per state: the row offset of the next state by character class, then
   * (last column) the state's output id, 0 when no keyword ends there. Offsets rather than state
   * numbers spare a multiplication per character.
   */
  private readonly next: Int32Array
  private readonly width: number
  /** The class of each ASCII character: 0 for any not in a keyword (as for every other character). */
  private readonly classOf = new Uint8Array(128)
  /** The scan (generation) in which each output id was last seen, so a scan collects each once. */
  private readonly seen: Uint32Array
  private generation = 0

  constructor(keywords: readonly string[]) {
    const distinct = [...new Set(keywords)]
    let classes = 1
    for (const keyword of distinct) {
      if (keyword.length < 2) throw new Error(`secret rule keyword too short: ${JSON.stringify(keyword)}`)
      for (const char of keyword) {
        const code = char.charCodeAt(0)
        if (code >= 128 || lowercase(code) !== code) throw new Error(`secret rule keyword not lowercase ASCII: ${JSON.stringify(keyword)}`)
        if (this.classOf[code] === 0) this.classOf[code] = classes++
      }
    }
    for (let code = 65; code <= 90; code++) this.classOf[code] = this.classOf[code | 32]!
    const trie = buildTrie(distinct, this.classOf, classes)
    this.width = classes + 1
    this.next = new Int32Array(trie.children.length * this.width)
    for (let state = 0; state < trie.children.length; state++) {
      const row = state * this.width
      for (let c = 0; c < classes; c++) this.next[row + c] = trie.children[state]![c]! * this.width
      if (trie.ends[state]!.length > 0) {
        this.endings.push(trie.ends[state]!)
        this.next[row + classes] = this.endings.length
      }
    }
    this.seen = new Uint32Array(this.endings.length + 1)
  }

  present(text: string): Set<string> {
    const { next, classOf, seen } = this
    const output = this.width - 1
    if (this.generation === 0xffffffff) {
      seen.fill(0)
      this.generation = 0
    }
    const generation = ++this.generation
    const found: number[] = []
    let row = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      row = next[row + (code < 128 ? classOf[code]! : 0)]!
      const id = next[row + output]!
      if (id !== 0 && seen[id] !== generation) {
        seen[id] = generation
        found.push(id)
      }
    }
    const present = new Set<string>()
    for (const id of found) for (const keyword of this.endings[id - 1]!) present.add(keyword)
    return present
  }
}

function lowercase(code: number): number {
  return code >= 65 && code <= 90 ? code | 32 : code
}

/**
 * The keywords' trie made a complete automaton: `children[state][class]` is the state after that
 * character whether or not the trie has the edge (the failure links followed ahead of time), and
 * `ends[state]` lists every keyword that ends there, its own and those of its proper suffixes.
 */
function buildTrie(keywords: readonly string[], classOf: Uint8Array, classes: number): { children: number[][]; ends: string[][] } {
  const children: number[][] = [new Array<number>(classes).fill(-1)]
  const ends: string[][] = [[]]
  for (const keyword of keywords) {
    let state = 0
    for (const char of keyword) {
      const c = classOf[char.charCodeAt(0)]!
      if (children[state]![c] === -1) {
        children[state]![c] = children.length
        children.push(new Array<number>(classes).fill(-1))
        ends.push([])
      }
      state = children[state]![c]!
    }
    ends[state]!.push(keyword)
  }
  // Breadth first, so that a state's failure target (a shorter suffix) is complete before it.
  const fail = new Array<number>(children.length).fill(0)
  const queue: number[] = []
  for (let c = 0; c < classes; c++) {
    const child = children[0]![c]!
    if (child === -1) children[0]![c] = 0
    else queue.push(child)
  }
  for (let at = 0; at < queue.length; at++) {
    const state = queue[at]!
    ends[state]!.push(...ends[fail[state]!]!)
    for (let c = 0; c < classes; c++) {
      const child = children[state]![c]!
      const fallback = children[fail[state]!]![c]!
      if (child === -1) {
        children[state]![c] = fallback
      } else {
        fail[child] = fallback
        queue.push(child)
      }
    }
  }
  return { children, ends }
}
