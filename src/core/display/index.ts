/** How untrusted text is shown: escaped for terminals, quoted inside the markdown we write. */
export { quotedName, terminalSafeJson, visibleLine, visibleText } from './escape.js'
export { codeSpan, fencedBlock } from './markdown.js'
