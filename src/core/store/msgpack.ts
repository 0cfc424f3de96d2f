/**
 * msgpackr as git-vlt ships it: its JavaScript encoder and decoder, copied into the package at
 * build time (scripts/msgpackr.ts), plus its native string decoder where this platform has one.
 *
 * msgpackr's own optional native decoder, msgpackr-extract, runs an install script (a prebuilt
 * lookup, else a node-gyp compile) on every npm 10 install, so we do not depend on it. Its prebuilt
 * binaries come instead as our own optional dependencies, one script-free package per platform of
 * which npm installs the one that fits, and are handed to the decoder here. With none (another
 * platform, `--omit=optional`, or MSGPACKR_NATIVE_ACCELERATION_DISABLED=true) the JavaScript
 * decoder does all of it: same results, about 16 % more CPU for a cold `coderag refs` on Linux 10k.
 */
import { createRequire } from 'node:module'
import * as decoder from '#msgpackr/unpack'

export { Packr } from '#msgpackr'

type ExtractStrings = (start: number, end: number, buffer: Uint8Array) => unknown
/** Not in msgpackr's published types: how its Node entry installs msgpackr-extract's decoder. */
const { setExtractor } = decoder as typeof decoder & { setExtractor(extract: ExtractStrings): void }

/**
 * The binaries in @msgpackr-extract/msgpackr-extract-<platform>-<arch>, in the order to try them:
 * N-API builds run on every Node version; a build for the other C library fails to load and the
 * next is tried (macOS's is named glibc, Windows' has no C library in its name).
 */
const BINARIES = ['node.napi.glibc.node', 'node.napi.musl.node', 'node.napi.node']

function loadNativeStrings(): boolean {
  if (process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED?.toLowerCase() === 'true') return false
  const require = createRequire(import.meta.url)
  for (const binary of BINARIES) {
    try {
      const native = require(`@msgpackr-extract/msgpackr-extract-${process.platform}-${process.arch}/${binary}`) as { extractStrings?: ExtractStrings }
      if (typeof native.extractStrings !== 'function') continue
      setExtractor(native.extractStrings)
      return true
    } catch {
      // Not installed for this platform, or built for the other C library: try the next one.
    }
  }
  return false
}

/** Whether strings are decoded natively in this process (checked by the install test). */
export const nativeStrings = loadNativeStrings()
