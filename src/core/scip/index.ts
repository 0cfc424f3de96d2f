/** SCIP indexes (FR-019): import a SCIP file under `.vlt/scip/`, auto-detect `index.scip`, build one with the user's indexer, and the view def/refs answer from. */
export { importScip, confinedPath, ScipImportError, type ScipImportResult, type ScipImportOptions } from './import.js'
export { refreshOfferedScip, offeredScipFile } from './auto.js'
export { scipViewLoader } from './load.js'
export { ScipView, type ScipOccurrence, type ScipDefinition } from './view.js'
export { buildScip, INDEXER_NAMES, type ScipBuildOptions, type ScipBuildResult } from './build.js'
export { describeImport } from './describe.js'
export { scipStatus, verifyScip, type ScipStatus } from './health.js'
