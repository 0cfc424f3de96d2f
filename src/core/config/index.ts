export { DEFAULT_CONFIG } from './defaults.js'
export { configFingerprint } from './fingerprint.js'
export { CONFIG_FILE, loadConfig, parseConfig } from './load.js'
export type { VltConfig } from './types.js'
