import { createRequire } from 'node:module'

/**
 * Gitignore-style globs over repo-relative '/' paths, as `vlt.toml` include/exclude lists use them:
 * a pattern without an inner '/' matches a name at any depth, one with a '/' is anchored at the
 * root, a trailing '/' matches directories only, a pattern that matches a directory matches
 * everything in it, `!` negates, and the last matching pattern wins. Unlike git, a negation can
 * re-select a file inside a directory an earlier pattern matched (`src/**` then `!src/gen/**`).
 */
export type GlobList = (path: string) => boolean

interface Rule {
  negate: boolean
  regex: RegExp
}

/** Why a pattern cannot be used, or undefined when it compiles. */
export function globProblem(pattern: string): string | undefined {
  try {
    compileRule(pattern)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** Compiles a list once; the returned matcher allocates nothing per call. Throws on a bad pattern. */
export function compileGlobList(patterns: readonly string[]): GlobList {
  const rules = patterns.map(compileRule)
  if (rules.length === 0) return () => false
  if (!rules.some((rule) => rule.negate)) {
    // Without negations order is irrelevant: one alternation is one regex pass per path.
    const any = new RegExp(rules.map((rule) => rule.regex.source).join('|'))
    return (path) => any.test(path)
  }
  return (path) => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!
      if (rule.regex.test(path)) return !rule.negate
    }
    return false
  }
}

// Loaded on first use: only vlt.toml globs and --path need it, and every command selects files.
const require = createRequire(import.meta.url)
let picomatch: typeof import('picomatch') | undefined

function compileRule(pattern: string): Rule {
  const negate = pattern.startsWith('!')
  let body = negate ? pattern.slice(1) : pattern
  if (body.trim() === '') throw new Error('it is empty')
  const dirOnly = body.endsWith('/')
  if (dirOnly) body = body.slice(0, -1)
  const anchored = body.includes('/')
  if (body.startsWith('/')) body = body.slice(1)
  if (body.split('/').some((segment) => segment === '.' || segment === '..' || segment === '')) {
    throw new Error('paths are repo-relative, without empty, "." or ".." segments')
  }
  const base = anchored ? body : `**/${body}`
  // `dir/**` would also match a file named `dir`; a directory pattern needs something inside.
  const globs = dirOnly ? [`${base}/**/*`] : [base, `${base}/**`]
  let sources: string[]
  try {
    picomatch ??= require('picomatch') as typeof import('picomatch')
    const pm = picomatch
    sources = globs.map((glob) => pm.makeRe(glob, { dot: true, strictBrackets: true }).source)
  } catch (error) {
    // picomatch says e.g. `Missing closing: "]" - use "\\]" to match literal characters`.
    throw new Error((error as Error).message.split(' - ')[0]!.replace(/^Missing closing: /, 'missing closing '))
  }
  return { negate, regex: new RegExp(sources.join('|')) }
}
