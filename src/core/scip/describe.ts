import type { ScipImportResult } from './import.js'

/** The one line `scip import` and `scip build` print for an import. */
export function describeImport(result: ScipImportResult): string {
  const left = result.skippedDocuments > 0 ? `; ${result.skippedDocuments} document(s) left out (outside the repository or not in that commit)` : ''
  const tool = result.tool ? ` by ${result.tool}` : ''
  return `Imported ${result.documents} document(s), ${result.occurrences} occurrence(s) of ${result.symbols} symbol(s)${tool}, built for commit ${result.commit.slice(0, 12)}${left}.`
}
