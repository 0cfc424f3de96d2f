/**
 * Replace-by-rename: data goes to a temp file beside the target, then rename(2) swaps it in, so a
 * reader (or a process killed at any instant) sees the old file or the new one, never a mix.
 *
 * Durability against power loss (fsync of the file and its directory) is a separate, costly
 * guarantee: about 0.7 ms per file here. Records are checksummed, so a file torn by a power cut
 * is detected and rebuilt anyway; callers writing thousands of rebuildable cache files can pass
 * `durable: false` and keep the atomicity.
 *
 * The target's folder is proven real first (see confine.ts): the temp file is created with O_EXCL
 * there, and the rename replaces whatever the target name is (a link included) without following it.
 *
 * A write that fails (a full disk, a read-only mount) removes its temp file and leaves the target as
 * it was; an environment's refusal is thrown as an EnvironmentFault naming the target (fault.ts).
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { lstat, open, rename, unlink } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { ensureDirSync, forgetDir, listDirConfined, listFilesConfined } from './confine.js'
import { faultOr } from './fault.js'
import { isProcessAlive } from './liveness.js'

export interface WriteOptions {
  /** fsync the file and its directory before returning (default true). */
  durable?: boolean
}

/** `<name>.<pid>-<thread>-<random>.vlt-tmp`: the writer's pid tells the sweeper whether it may still be writing. */
const TEMP_PATTERN = /\.(\d+)-(\d+)-[0-9a-f]+\.vlt-tmp$/

/** A temp path beside `path` that sweepTempFiles recognises (and removes once its writer is gone). */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.vlt-tmp`
}

/** `data` in parts: written one after the other, never joined (a large record built in blocks). */
export async function writeFileAtomic(path: string, data: Uint8Array | Iterable<Uint8Array>, opts: WriteOptions = {}): Promise<void> {
  const durable = opts.durable ?? true
  const temp = tempPathFor(path)
  try {
    ensureDirSync(dirname(path))
    let file
    try {
      file = await open(temp, 'wx')
    } catch (error) {
      // The folder was proven a moment ago and removed since (gc, a user): prove it again.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      forgetDir(dirname(path))
      ensureDirSync(dirname(path))
      file = await open(temp, 'wx')
    }
    try {
      try {
        if (data instanceof Uint8Array) await file.writeFile(data)
        else {
          for (const part of data) {
            for (let at = 0; at < part.length; ) at += (await file.write(part, at)).bytesWritten
          }
        }
        if (durable) await file.sync()
      } finally {
        await file.close()
      }
      await rename(temp, path)
    } catch (error) {
      await unlink(temp).catch(() => {})
      throw error
    }
  } catch (error) {
    throw faultOr(error, path)
  }
  if (durable) await syncDirectory(dirname(path))
}

/**
 * Same as writeFileAtomic, for worker threads' hot path where a promise per file costs more than
 * the write. `data` may come in parts, written one after the other (a large record never copied whole).
 */
export function writeFileAtomicSync(path: string, data: Uint8Array | Iterable<Uint8Array>, opts: WriteOptions = {}): void {
  const durable = opts.durable ?? true
  const temp = tempPathFor(path)
  try {
    ensureDirSync(dirname(path))
    let fd: number
    try {
      fd = openSync(temp, 'wx')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      forgetDir(dirname(path))
      ensureDirSync(dirname(path))
      fd = openSync(temp, 'wx')
    }
    try {
      try {
        for (const part of data instanceof Uint8Array ? [data] : data) {
          let written = 0
          while (written < part.length) written += writeSync(fd, part, written)
        }
        if (durable) fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(temp, path)
    } catch (error) {
      try {
        unlinkSync(temp)
      } catch {
        // Already gone or never created: nothing to clean.
      }
      throw error
    }
  } catch (error) {
    throw faultOr(error, path)
  }
  if (durable) syncDirectorySync(dirname(path))
}

/**
 * A new temp file beside `target` (its folder proven first, see confine.ts), created with O_EXCL:
 * `wx`, or `wx+` to read it back. An environment's refusal is a fault naming `target`.
 */
export function createTempBeside(target: string, flags: 'wx' | 'wx+'): { path: string; fd: number } {
  const path = tempPathFor(target)
  try {
    ensureDirSync(dirname(target))
    return { path, fd: openSync(path, flags) }
  } catch (error) {
    throw faultOr(error, target)
  }
}

/** All of `bytes` written at the descriptor's position; a refusal (full disk) is a fault naming `name`. */
export function writeAllSync(fd: number, bytes: Uint8Array, name: string): void {
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at)
  } catch (error) {
    throw faultOr(error, name)
  }
}

/**
 * A file that arrives in parts (from the network) and may turn out unusable: written to a temp
 * file beside `path` (checked there by its `temp` path once `finish`ed), put in place by `place`,
 * or removed by `discard`. A process killed meanwhile leaves a temp file the next sweep removes.
 */
export class IncomingFile {
  readonly temp: string
  private fd: number | undefined
  /** Placed or discarded: the temp file is no longer this object's. */
  private settled = false

  constructor(readonly path: string) {
    const created = createTempBeside(path, 'wx')
    this.temp = created.path
    this.fd = created.fd
  }

  write(bytes: Uint8Array): void {
    writeAllSync(this.fd!, bytes, this.path)
  }

  /** Everything written is on disk and the file closed: it may be read by its temp path. */
  finish(): void {
    if (this.fd === undefined) return
    const fd = this.fd
    this.fd = undefined
    try {
      fsyncSync(fd)
    } catch (error) {
      throw faultOr(error, this.path)
    } finally {
      closeSync(fd)
    }
  }

  /** Puts the finished file in place of `path`. */
  async place(): Promise<void> {
    this.finish()
    try {
      await rename(this.temp, this.path)
    } catch (error) {
      throw faultOr(error, this.path)
    }
    this.settled = true
    await syncDirectory(dirname(this.path))
  }

  /** Removes the temp file unless it was placed; safe to call more than once. */
  discard(): void {
    if (this.settled) return
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    try {
      unlinkSync(this.temp)
    } catch {
      // Already gone: nothing to remove.
    }
    this.settled = true
  }
}

/** Makes the rename itself survive a power cut. Some filesystems refuse to fsync a directory; that only weakens durability. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // See above: best effort.
  }
}

function syncDirectorySync(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // See syncDirectory.
  }
}

export interface SweepOptions {
  /** Temp files older than this are removed even if their writer's pid is alive (pid reuse, hung writer). Default one hour. */
  maxAgeMs?: number
  /** Told the size of each file removed (measured before removing it). */
  removed?: (bytes: number) => void
}

/**
 * Removes temp files abandoned by killed writers anywhere under `dir`: those whose writer pid is
 * dead, or that are older than `maxAgeMs`. Returns how many were removed. Walks the whole tree
 * (never into a link), so it belongs to cold paths (init, repair), not to every sync.
 */
export async function sweepTempFiles(dir: string, opts: SweepOptions = {}): Promise<number> {
  let removed = 0
  for (const path of await listFilesConfined(dir)) if (await removeIfAbandoned(path, opts)) removed++
  return removed
}

/**
 * Removes the abandoned temp files of one target, `<target>.<pid>-….vlt-tmp` beside it: for a file
 * written before any lock is held (`.vlt/.gitignore`), whose killed writer no lock recovery would
 * ever clear. One readdir, so it suits a path that runs every time.
 */
export async function sweepTempFilesOf(target: string, opts: SweepOptions = {}): Promise<number> {
  const prefix = `${basename(target)}.`
  let removed = 0
  for (const name of await listDirConfined(dirname(target))) {
    if (name.startsWith(prefix) && (await removeIfAbandoned(join(dirname(target), name), opts))) removed++
  }
  return removed
}

async function removeIfAbandoned(path: string, opts: SweepOptions): Promise<boolean> {
  const match = TEMP_PATTERN.exec(basename(path))
  if (!match) return false
  const maxAgeMs = opts.maxAgeMs ?? 60 * 60 * 1000
  try {
    const info = await lstat(path)
    const old = Date.now() - info.mtimeMs > maxAgeMs
    if (!old && isProcessAlive(Number(match[1]))) return false
    await unlink(path)
    opts.removed?.(info.size)
    return true
  } catch (error) {
    // Its writer finished (renamed it) or another sweeper got there first.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw faultOr(error, path)
    return false
  }
}
