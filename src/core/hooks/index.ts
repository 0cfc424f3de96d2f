/** git hooks that queue index updates: install, uninstall, status, and the script they run. */
export { hooksDir, hooksStatus, installHooks, uninstallHooks, type HookChange, type HookState, type HookStatus, type HooksDir, type HooksReport, type InstallOptions } from './install.js'
export { CHAINED_SUFFIX, HOOK_NAMES, type HookName } from './script.js'
