/** `.vlt/` storage: checksummed versioned records, atomic writes, the writer lock, the directory layout, confinement inside it, and the environment's faults (read-only, full). */
export { encodeRecord, decodeRecord, decodePayload, checkFraming, checkRecord, checkRecordFileSync, frameParts, headerLength, openFramedSync, type EncodeOptions, type OpenRecord, type RecordFrame, type SizedParts } from './record.js'
export { readRecord, readRecordSync, writeFramedSync, writeRecord, writeRecordSync } from './record-file.js'
export { ScratchFile } from './scratch-file.js'
export { IncomingFile, writeFileAtomic, writeFileAtomicSync, sweepTempFiles, sweepTempFilesOf, tempPathFor, type WriteOptions, type SweepOptions } from './atomic-file.js'
export { acquireLock, withLock, LockBusyError, type Lock, type LockHolder, type LockOptions } from './lock.js'
export { EnvironmentFault, environmentFault, faultFromJSON, faultOr, takeFaultNotice, unlessUnwritable, unlessUnwritableSync, unwritableNotice } from './fault.js'
export { vltPaths, ensureVltDir, GITIGNORE, type VltPaths } from './layout.js'
export { refuseShippedRecords } from './shipped.js'
export {
  ConfinementError,
  confineTo,
  confinedRoots,
  dirExistsSync,
  ensureDirSync,
  forgetDir,
  listDirConfined,
  listDirConfinedSync,
  listFilesConfined,
  openConfined,
  openConfinedSync,
  openForAppendSync,
  readAtSync,
  readFileConfined,
  readFileConfinedSync,
  removeConfined,
  removeConfinedSync,
} from './confine.js'
