/**
 * Interned strings shared by the symbol table and the code graph: per-file columns hold ids, so
 * millions of names cost four bytes each and compare as integers. Ids are stable for the life
 * of the table; the stored form is renumbered canonically (see SymbolTable.snapshot).
 *
 * The text is kept as UTF-8 in pages of bytes, each string preceded by its length (a varint), and
 * found through an open-addressing hash of ids, rather than as a JS string per id in an array and
 * a dictionary: Linux's 4.1 M names and paths (95 MB of text) cost ~330 MB of the V8 heap so at
 * the end of a build's adding phase (a string's header, and for 13 characters or more a sliced
 * string over a copy the dictionary made), and ~150 MB of buffers as bytes. `get` decodes a new
 * string each call (tens of nanoseconds).
 *
 * Strings are compared as UTF-8, so two JS strings holding different lone surrogates would be one
 * string here; the text interned (identifiers and paths decoded from UTF-8) never holds one.
 */
import { release } from '../release.js'

/** Stored strings are joined by NUL, which no identifier, path or signature we keep contains. */
export const STRING_SEPARATOR = '\u0000'
const SEPARATOR_BYTE = 0

const PAGE_BITS = 20
const PAGE_SIZE = 1 << PAGE_BITS
const OFFSET_MASK = PAGE_SIZE - 1
/** Ids are placed as page * PAGE_SIZE + offset in 32 bits. */
const MAX_PAGES = 2 ** (32 - PAGE_BITS)

const FNV_OFFSET = 0x811c9dc5 | 0
const FNV_PRIME = 0x01000193

/** Strings by id, as the stored form's encoder reads them (StringTable, or a stored list). */
export interface StringList {
  readonly size: number
  get(id: number): string
  /** The strings `ids` name, joined by STRING_SEPARATOR. */
  join(ids: ArrayLike<number>): string
  /** `utf16Fnv1a(get(id))`, where it can be had without decoding the string (see StringTable.fnv1a). */
  fnv1a?(id: number): number
  /** `join(ids)` as UTF-8 bytes after `headroom` spare bytes, where it can be had without a JS string (see StringTable.joinBytes). */
  joinBytes?(ids: ArrayLike<number>, headroom: number): Buffer
}

/** FNV-1a over a string's UTF-16 code units, unsigned: stable across runs and platforms (symbols-file.ts buckets by it). */
export function utf16Fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

export class StringTable implements StringList {
  private readonly pages: Buffer[] = []
  /** Bytes used of the last page (a new table has no room left). */
  private used = PAGE_SIZE
  /** Per id: page * PAGE_SIZE + offset of its length, its bytes right after. */
  private starts = new Uint32Array(1024)
  private count = 0
  /**
   * Per slot, 0 = empty, else id + 1 in the low bits (those of `slots.length - 1`: ids are fewer
   * than half the slots) and the top bits of the string's hash above them, so a probe passing
   * other strings rejects nearly all of them without reading their bytes (two cache misses each:
   * `starts`, then the page) and with no more memory. At most half full. Built on first lookup
   * (see `index`).
   */
  private slots = new Int32Array(0)
  /** Ids below this are in `slots`. */
  private indexed = 0
  /** The UTF-8 bytes of the last text hashed that was not ASCII, and their length. */
  private encoded = Buffer.alloc(256)
  private encodedLength = 0
  /**
   * The strings of a stored list, as they were given until something looks one up or adds one
   * (`own`): a query reads a run of a stored table by id, and copying its strings into bytes
   * first made a cold `refs`, which opens a run per file mentioning the name, slower.
   */
  private listed: readonly string[] | undefined

  constructor(strings: readonly string[] = ['']) {
    this.listed = strings
  }

  get size(): number {
    return this.listed ? this.listed.length : this.count
  }

  /** The id of `text`, adding it when new. Id 0 is always the empty string. */
  id(text: string): number {
    this.own()
    this.index()
    const hash = this.hashOf(text)
    const ascii = this.encodedLength < 0
    const slot = this.slotOf(text, ascii, hash)
    const mask = this.slots.length - 1
    const entry = this.slots[slot]
    if (entry !== 0) return (entry & mask) - 1
    const id = this.append(text, ascii)
    this.slots[slot] = slotEntry(id, hash, mask)
    this.indexed = this.count
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2)
    return id
  }

  /** The id of `text`, or -1 when it was never interned. */
  find(text: string): number {
    this.own()
    this.index()
    const hash = this.hashOf(text)
    const entry = this.slots[this.slotOf(text, this.encodedLength < 0, hash)]
    return entry === 0 ? -1 : (entry & (this.slots.length - 1)) - 1
  }

  get(id: number): string {
    if (this.listed) {
      if (!(id >= 0 && id < this.listed.length)) throw new RangeError(`no string ${id} of ${this.listed.length}`)
      return this.listed[id]!
    }
    const { page, offset, length } = this.span(id)
    return page.toString('utf8', offset, offset + length)
  }

  /**
   * `get(id).charCodeAt(0)` (NaN for the empty string) without decoding the string: resolving a
   * build's references asks it of every reference row (millions on Linux).
   */
  firstCharCode(id: number): number {
    if (this.listed) return this.get(id).charCodeAt(0)
    const { page, offset, length } = this.span(id)
    if (length === 0) return NaN
    const byte = page[offset]!
    // An ASCII byte is its character; otherwise the first character is at most 4 bytes long.
    return byte < 0x80 ? byte : page.toString('utf8', offset, offset + Math.min(length, 4)).charCodeAt(0)
  }

  /**
   * `utf16Fnv1a(get(id))`: from the bytes of an ASCII string (each byte its code unit), a string
   * decoded only otherwise. Bucketing a table's names (symbols-file.ts) hashes every one of them:
   * Linux's 4 M, each decoded into a string of its own to be dropped at once.
   */
  fnv1a(id: number): number {
    if (this.listed) return utf16Fnv1a(this.get(id))
    const { page, offset, length } = this.span(id)
    let hash = 0x811c9dc5
    for (let i = offset; i < offset + length; i++) {
      const byte = page[i]!
      if (byte >= 0x80) return utf16Fnv1a(page.toString('utf8', offset, offset + length))
      hash = Math.imul(hash ^ byte, 0x01000193)
    }
    return hash >>> 0
  }

  /** Decoded once from the bytes joined, rather than a string for each id first. */
  join(ids: ArrayLike<number>): string {
    if (this.listed) return Array.from(ids, (id) => this.get(id)).join(STRING_SEPARATOR)
    return this.joinBytes(ids, 0).toString('utf8')
  }

  /**
   * The strings `ids` name joined by STRING_SEPARATOR, as UTF-8 bytes after `headroom` spare bytes
   * (for a header the caller writes there): a table's tens of megabytes of names go to their block
   * without becoming a JS string to be encoded back (symbols-file.ts).
   */
  joinBytes(ids: ArrayLike<number>, headroom: number): Buffer {
    if (this.listed) {
      const text = this.join(ids)
      const joined = Buffer.allocUnsafe(headroom + Buffer.byteLength(text))
      joined.write(text, headroom)
      return joined
    }
    let total = headroom + Math.max(ids.length - 1, 0)
    for (let i = 0; i < ids.length; i++) total += this.span(ids[i]!).length
    const joined = Buffer.allocUnsafe(total)
    for (let i = 0, at = headroom; i < ids.length; i++) {
      if (i > 0) joined[at++] = SEPARATOR_BYTE
      const { page, offset, length } = this.span(ids[i]!)
      at += page.copy(joined, at, offset, offset + length)
    }
    return joined
  }

  /** Where the bytes of `id` are. */
  private span(id: number): { page: Buffer; offset: number; length: number } {
    if (!(id >= 0 && id < this.count)) throw new RangeError(`no string ${id} of ${this.count}`)
    const at = this.starts[id]
    const page = this.pages[at >>> PAGE_BITS]!
    const length = lengthAt(page, at & OFFSET_MASK)
    return { page, offset: (at & OFFSET_MASK) + varintSize(length), length }
  }

  /** The listed strings, as bytes under the same ids. */
  private own(): void {
    if (!this.listed) return
    const listed = this.listed
    this.listed = undefined
    for (const text of listed) this.append(text, this.isAscii(text))
  }

  /** Adds `text` under the next id without looking it up (a stored list's strings are distinct already). */
  private append(text: string, ascii: boolean): number {
    const length = ascii ? text.length : this.encodedLength
    const need = varintSize(length) + length
    if (this.used + need > PAGE_SIZE) this.newPage(need)
    const pageIndex = this.pages.length - 1
    const page = this.pages[pageIndex]!
    if (this.count === this.starts.length) {
      const starts = new Uint32Array(this.starts.length * 2)
      starts.set(this.starts)
      release(this.starts)
      this.starts = starts
    }
    const id = this.count++
    this.starts[id] = pageIndex * PAGE_SIZE + this.used
    let at = this.used
    for (let rest = length; ; rest >>>= 7) {
      if (rest < 0x80) {
        page[at++] = rest
        break
      }
      page[at++] = (rest & 0x7f) | 0x80
    }
    if (ascii) for (let i = 0; i < length; i++) page[at++] = text.charCodeAt(i)
    else at += this.encoded.copy(page, at, 0, length)
    // A page larger than PAGE_SIZE holds one long string: the next string starts a new page.
    this.used = page.length > PAGE_SIZE ? PAGE_SIZE : at
    return id
  }

  private newPage(need: number): void {
    if (this.pages.length === MAX_PAGES) throw new RangeError('string table is full')
    this.pages.push(Buffer.alloc(Math.max(PAGE_SIZE, need)))
    this.used = 0
  }

  /** Whether `text` is ASCII; when not, its UTF-8 bytes are left in `encoded` (as `hashOf` does). */
  private isAscii(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) >= 0x80) {
        this.encode(text)
        return false
      }
    }
    this.encodedLength = -1
    return true
  }

  /** FNV-1a over the UTF-8 bytes of `text`. Sets `encodedLength` to -1 for ASCII, else leaves the bytes in `encoded`. */
  private hashOf(text: string): number {
    let hash = FNV_OFFSET
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c >= 0x80) {
        this.encode(text)
        return hashBytes(this.encoded, 0, this.encodedLength)
      }
      hash = Math.imul(hash ^ c, FNV_PRIME)
    }
    this.encodedLength = -1
    return hash
  }

  private encode(text: string): void {
    const length = Buffer.byteLength(text, 'utf8')
    if (length > this.encoded.length) this.encoded = Buffer.alloc(Math.max(length, this.encoded.length * 2))
    this.encodedLength = this.encoded.write(text, 0, 'utf8')
  }

  /** The slot holding `text`'s id, or the empty slot where it belongs. */
  private slotOf(text: string, ascii: boolean, hash: number): number {
    const { slots, pages, starts } = this
    const mask = slots.length - 1
    const length = ascii ? text.length : this.encodedLength
    const tag = hash & ~mask
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]
      if (entry === 0) return slot
      if ((entry & ~mask) !== tag) continue
      const at = starts[(entry & mask) - 1]
      const page = pages[at >>> PAGE_BITS]!
      if (lengthAt(page, at & OFFSET_MASK) !== length) continue
      const offset = (at & OFFSET_MASK) + varintSize(length)
      let same = true
      if (ascii) {
        for (let i = 0; i < length && same; i++) same = page[offset + i] === text.charCodeAt(i)
      } else {
        for (let i = 0; i < length && same; i++) same = page[offset + i] === this.encoded[i]
      }
      if (same) return slot
    }
  }

  /**
   * Puts the ids not yet in `slots` there, on first lookup: a loaded table is often only read by
   * id (saving, ranking), and a query's run of a stored table is opened to be read by id.
   */
  private index(): void {
    if (this.indexed === this.count && this.slots.length > 0) return
    let size = Math.max(this.slots.length, 1024)
    while (this.count * 2 > size) size *= 2
    this.rehash(size)
  }

  /** Every id in `size` slots, hashed again from its bytes. */
  private rehash(size: number): void {
    const slots = new Int32Array(size)
    const mask = size - 1
    const { pages, starts } = this
    for (let id = 0; id < this.count; id++) {
      const at = starts[id]
      const page = pages[at >>> PAGE_BITS]!
      const length = lengthAt(page, at & OFFSET_MASK)
      const offset = (at & OFFSET_MASK) + varintSize(length)
      const hash = hashBytes(page, offset, offset + length)
      let slot = hash & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = slotEntry(id, hash, mask)
    }
    release(this.slots)
    this.slots = slots
    this.indexed = this.count
  }
}

/** What a slot holds for `id` in a table of `mask + 1` slots (see StringTable.slots). */
function slotEntry(id: number, hash: number, mask: number): number {
  return (hash & ~mask) | (id + 1)
}

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME)
  return hash
}

/** The varint at `offset` of `page`: a string's length in bytes. */
function lengthAt(page: Uint8Array, offset: number): number {
  let length = 0
  for (let shift = 0, byte = 0x80; byte >= 0x80; shift += 7) {
    byte = page[offset++]!
    length |= (byte & 0x7f) << shift
  }
  return length
}

function varintSize(value: number): number {
  let size = 1
  while (value >= 0x80) {
    value >>>= 7
    size++
  }
  return size
}
