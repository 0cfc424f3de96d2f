/**
 * Scratch bytes a writer cannot hold in memory until it is done: written once in order, read back
 * in order, removed when closed. The file lies beside the record it helps write, named as that
 * record's temp file (atomic-file.ts), so one left behind by a killed process is removed by the next
 * sweep of `.vlt/` like any other abandoned temp file.
 */
import { closeSync, unlinkSync } from 'node:fs'
import { createTempBeside, writeAllSync } from './atomic-file.js'
import { readAtSync, readIntoSync } from './confine.js'

/** Writes are gathered into buffers of this size, and read back in chunks of it. */
const CHUNK_BYTES = 1 << 20

export class ScratchFile {
  readonly path: string
  private readonly fd: number
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  private buffered = 0
  private written = 0
  private closed = false

  /** A new scratch file beside `target` (whose folder is proven, see confine.ts). */
  constructor(target: string) {
    const created = createTempBeside(target, 'wx+')
    this.path = created.path
    this.fd = created.fd
    removeAtExit(this)
  }

  /** Bytes written so far. */
  get length(): number {
    return this.written + this.buffered
  }

  write(bytes: Uint8Array): void {
    if (this.buffered + bytes.length > CHUNK_BYTES) this.flush()
    if (bytes.length >= CHUNK_BYTES) this.writeOut(bytes)
    else {
      this.buffer.set(bytes, this.buffered)
      this.buffered += bytes.length
    }
  }

  /** `length` bytes from `position` (fewer past the end). */
  readAt(position: number, length: number): Buffer {
    this.flush()
    return readAtSync(this.fd, position, Math.max(0, Math.min(length, this.written - position)))
  }

  /**
   * Its descriptor and length, everything written flushed to it: for another thread to read it (a
   * descriptor is the process's, not a thread's). It stays this object's to close.
   */
  shared(): { fd: number; length: number } {
    this.flush()
    return { fd: this.fd, length: this.written }
  }

  /**
   * Everything written, in order, one chunk at a time (never all of it in memory). Each chunk is
   * one buffer overwritten by the next: every reader writes a chunk out (and checksums it) before
   * it asks for the next, and a fresh megabyte per chunk piled up as garbage (~130 MB in the BM25
   * writer's thread at the end of a Linux build, the build's memory peak).
   */
  *chunks(): Generator<Uint8Array> {
    this.flush()
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, this.written))
    for (let at = 0; at < this.written; at += CHUNK_BYTES) {
      const chunk = buffer.subarray(0, Math.min(CHUNK_BYTES, this.written - at))
      if (readIntoSync(this.fd, chunk, at) < chunk.length) throw new Error(`${this.path} was truncated while in use`)
      yield chunk
    }
  }

  /** Closes and removes the file; safe to call again. */
  close(): void {
    if (this.closed) return
    this.closed = true
    open.delete(this)
    closeSync(this.fd)
    try {
      unlinkSync(this.path)
    } catch {
      // Already gone (a sweep found its writer dead): nothing to clean.
    }
  }

  private flush(): void {
    if (this.buffered === 0) return
    this.writeOut(this.buffer.subarray(0, this.buffered))
    this.buffered = 0
  }

  private writeOut(bytes: Uint8Array): void {
    writeAllSync(this.fd, bytes, this.path)
    this.written += bytes.length
  }
}

/**
 * Scratch files not closed yet: removed when the process exits, so a build that fails leaves none
 * behind whatever path its error took (a killed one leaves them to the next sweep).
 */
const open = new Set<ScratchFile>()

function removeAtExit(file: ScratchFile): void {
  if (!exitHooked) {
    exitHooked = true
    process.once('exit', () => {
      for (const left of open) left.close()
    })
  }
  open.add(file)
}

let exitHooked = false
