/**
 * Errors a user can act on. Commands turn them into one clear line and an exit code;
 * anything else is a bug and keeps its stack.
 */
export class VltError extends Error {
  /** 2 = the user asked for something impossible (usage), 1 = the work failed. */
  readonly exitCode: 1 | 2

  constructor(message: string, exitCode: 1 | 2 = 1) {
    super(message)
    this.name = 'VltError'
    this.exitCode = exitCode
  }
}

/** Misuse: wrong flags, not a git repository, bad vlt.toml. Exit code 2. */
export class UsageError extends VltError {
  constructor(message: string) {
    super(message, 2)
    this.name = 'UsageError'
  }
}

/** A `.vlt/` file that cannot be trusted (bad magic, checksum, version). Callers rebuild it. */
export class CorruptFileError extends VltError {
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`)
    this.name = 'CorruptFileError'
  }
}

/**
 * What `read` returns, or what `onCorrupt` makes of a CorruptFileError (report it, fall back to
 * "absent" so the caller rebuilds). Any other error propagates.
 */
export async function unlessCorrupt<T, F>(read: () => Promise<T>, onCorrupt: (error: CorruptFileError) => F): Promise<T | F> {
  try {
    return await read()
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error
    return onCorrupt(error)
  }
}

/** The value, or undefined when it fails a record check (CorruptFileError); anything else is thrown. */
export function passesChecks<T>(check: () => T): T | undefined {
  try {
    return check()
  } catch (error) {
    if (error instanceof CorruptFileError) return undefined
    throw error
  }
}
