export { classifyContent, type ContentClass, type ContentSkip } from './content.js'
export { compileGlobList, globProblem, type GlobList } from './globs.js'
export { looksLikeSecret, redactSecrets, type RedactOptions, type SecretKind } from './secrets.js'
export { createFileSelector, type FileSelection, type FileSelector } from './select.js'
