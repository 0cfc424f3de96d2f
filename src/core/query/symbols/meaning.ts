/**
 * TypeScript keeps types and values apart, so that an interface and a constant may share a name
 * (`interface EmptyError` beside `const EmptyError: EmptyErrorCtor`); the language service finds,
 * from either declaration, only the uses in its own space.
 */
import type { SymbolInfo, SymbolTable } from '../../graph/symbol-table.js'
import type { LanguageId, ReferenceKind, SymbolKind } from '../../parse/types.js'

export type Space = 'type' | 'value'

const SPACE_LANGUAGES = new Set<LanguageId>(['typescript', 'tsx'])

function spaceOf(kind: SymbolKind): Space | undefined {
  if (kind === 'interface' || kind === 'type') return 'type'
  if (kind === 'function' || kind === 'constant' || kind === 'variable') return 'value'
  return undefined // classes, enums and namespaces are both
}

/** The space the targets' uses are restricted to: undefined unless a same-named definition of the other space shares their file. */
export function restrictedSpace(table: SymbolTable, targets: readonly SymbolInfo[], languageOf: (path: string) => LanguageId | undefined): Space | undefined {
  const space = targets[0] && spaceOf(targets[0].kind)
  if (!space || targets.some((t) => spaceOf(t.kind) !== space || !SPACE_LANGUAGES.has(languageOf(t.path)!))) return undefined
  const twin = (t: SymbolInfo): boolean => table.definitions(t.path).some((d) => d.qualifiedName === t.qualifiedName && spaceOf(d.kind) !== undefined && spaceOf(d.kind) !== space)
  return targets.some(twin) ? space : undefined
}

/** Calls and plain references are values, annotations types; inheritance, imports, exports and doc links may be either. */
export function inSpace(kind: ReferenceKind, space: Space): boolean {
  return space === 'type' ? kind !== 'call' && kind !== 'reference' : kind !== 'type'
}
