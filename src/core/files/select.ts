import type { VltConfig } from '../config/types.js'
import { languageForPath } from '../parse/languages.js'
import type { LanguageId } from '../parse/types.js'
import { isExcludedDir, isExcludedFile } from './builtin-excludes.js'
import { compileGlobList } from './globs.js'
import { isSecretFile } from './secret-names.js'

export type FileSelection =
  | { selected: true; language: LanguageId }
  | { selected: false; reason: 'excluded' | 'secret' | 'language' }

/** Decides from a repo-relative '/' path alone whether and how a file is indexed. */
export type FileSelector = (path: string) => FileSelection

const EXCLUDED: FileSelection = Object.freeze({ selected: false, reason: 'excluded' })
const SECRET: FileSelection = Object.freeze({ selected: false, reason: 'secret' })
const NO_LANGUAGE: FileSelection = Object.freeze({ selected: false, reason: 'language' })

/**
 * Compiles `vlt.toml`'s selection settings once. The paths come from git, so .gitignore has
 * already been applied; on top of it go the built-in excludes, then include/exclude, then the
 * credential-file check, then the language filter. Called for every path of large trees, so each
 * call is a few regex tests and set lookups, and selections are shared, frozen objects.
 */
export function createFileSelector(config: VltConfig): FileSelector {
  const { include, exclude, languages, textFiles } = config.index
  const included = include.length > 0 ? compileGlobList(include) : undefined
  const excluded = exclude.length > 0 ? compileGlobList(exclude) : undefined
  const allowed = languages.length > 0 ? new Set(languages) : undefined
  const selections = new Map<LanguageId, FileSelection>()
  const selectionFor = (language: LanguageId): FileSelection => {
    let selection = selections.get(language)
    if (!selection) {
      selection = allowed && !allowed.has(language) ? NO_LANGUAGE : Object.freeze({ selected: true, language })
      selections.set(language, selection)
    }
    return selection
  }

  // Git lists paths folder by folder, so the previous path's folder verdict usually still holds.
  let lastDir = ''
  let lastDirExcluded = false

  return (path) => {
    const slash = path.lastIndexOf('/')
    const dir = path.slice(0, slash + 1)
    if (dir !== lastDir) {
      lastDir = dir
      lastDirExcluded = isExcludedDir(dir)
    }
    if (lastDirExcluded) return EXCLUDED
    const base = path.slice(slash + 1)
    const lowerBase = base.toLowerCase()
    const dot = lowerBase.lastIndexOf('.')
    const lowerExtension = dot > 0 ? lowerBase.slice(dot) : ''
    if (isExcludedFile(base, lowerBase, lowerExtension)) return EXCLUDED
    if (included && !included(path)) return EXCLUDED
    if (excluded && excluded(path)) return EXCLUDED
    if (isSecretFile(path, lowerBase, lowerExtension)) return SECRET
    const language = languageForPath(path) ?? (textFiles ? 'text' : undefined)
    return language ? selectionFor(language) : NO_LANGUAGE
  }
}
