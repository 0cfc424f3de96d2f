/**
 * Environment faults: `.vlt/` cannot be written because of where it lives, not because of anything
 * git-vlt did — a read-only mount (a CI cache), a folder the user may not write, a full disk or
 * quota. The write primitives of this folder (atomic-file.ts, confine.ts, lock.ts, the blob store's
 * pack writer) turn such an error into an EnvironmentFault naming the file they were writing, after
 * removing their temp file, so that:
 *
 * - every command prints it as one line (a VltError: exit 1, never a stack trace);
 * - a query, whose just-in-time sync it stopped, answers from what is indexed, marked stale;
 * - a write the caller can do without (a cache it holds in memory, a healed record) is skipped
 *   (`optional` writes, `unlessUnwritable`), and the fault is noted once per process, for the
 *   one line that says the index was not updated (`takeFaultNotice`, read by the command base).
 */
import { VltError } from '../errors.js'

/** errno codes that describe the environment, by what they mean for `.vlt/`. */
const CODES: Record<string, { readOnly: boolean; says: string }> = {
  EROFS: { readOnly: true, says: 'read-only file system' },
  EACCES: { readOnly: true, says: 'permission denied' },
  EPERM: { readOnly: true, says: 'operation not permitted' },
  ENOSPC: { readOnly: false, says: 'no space left on device' },
  EDQUOT: { readOnly: false, says: 'disk quota exceeded' },
}

/** The suffix of a temp file (atomic-file.ts): a fault names the file being written, not its temp. */
const TEMP_SUFFIX = /\.\d+-\d+-[0-9a-f]+\.vlt-tmp$/

export class EnvironmentFault extends VltError {
  /** True when `.vlt/` cannot be written at all (read-only, permissions); false when it is full. */
  readonly readOnly: boolean

  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    const known = CODES[code]
    super(`cannot write ${path.replace(TEMP_SUFFIX, '')}: ${known?.says ?? 'write failed'} (${code})`)
    this.name = 'EnvironmentFault'
    this.readOnly = known?.readOnly ?? false
  }

  /** What a worker thread posts back: the fault travels as data, structured clone keeps no class. */
  toJSON(): { path: string; code: string } {
    return { path: this.path, code: this.code }
  }
}

/** The first fault of this process, and whether it was told. */
let noted: { fault: EnvironmentFault; reported: boolean } | undefined

function note(fault: EnvironmentFault): EnvironmentFault {
  // One line per process: a fault met after one was told (the same mount, most likely) is not told again.
  noted ??= { fault, reported: false }
  return fault
}

/**
 * The EnvironmentFault that `error`, raised writing `path`, stands for (noted for the one line), or
 * `error` itself when it is anything else. Write primitives rethrow what this returns.
 */
export function faultOr(error: unknown, path: string): unknown {
  if (error instanceof EnvironmentFault) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' && Object.hasOwn(CODES, code) ? note(new EnvironmentFault(path, code)) : error
}

/** A fault posted by a worker thread (see toJSON), as the fault it was; anything else is undefined. */
export function faultFromJSON(value: unknown): EnvironmentFault | undefined {
  const { path, code } = (value ?? {}) as { path?: unknown; code?: unknown }
  return typeof path === 'string' && typeof code === 'string' && Object.hasOwn(CODES, code) ? note(new EnvironmentFault(path, code)) : undefined
}

/**
 * The environment fault an error escaping a command stands for: one raised by a primitive, or an
 * errno error from a write elsewhere (it names its own path). Undefined for anything else.
 */
export function environmentFault(error: unknown): EnvironmentFault | undefined {
  if (error instanceof EnvironmentFault) return error
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException
  return typeof code === 'string' && typeof path === 'string' && Object.hasOwn(CODES, code) ? note(new EnvironmentFault(path, code)) : undefined
}

/** Runs a write the caller can do without: an environment fault skips it (noted), anything else propagates. */
export async function unlessUnwritable<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof EnvironmentFault) return undefined
    throw error
  }
}

export function unlessUnwritableSync<T>(write: () => T): T | undefined {
  try {
    return write()
  } catch (error) {
    if (error instanceof EnvironmentFault) return undefined
    throw error
  }
}

/**
 * The fault noted since the last notice, once: whoever prints the one line about it (a query
 * answering stale, the command base at the end of a command) takes it, and nobody repeats it.
 */
export function takeFaultNotice(): EnvironmentFault | undefined {
  if (!noted || noted.reported) return undefined
  noted.reported = true
  return noted.fault
}

/** The warning about a fault that skipped writes: what could not be written, and what it means. */
export function unwritableNotice(fault: EnvironmentFault): string {
  return `${fault.message}; the index was not updated, answers may be stale`
}
