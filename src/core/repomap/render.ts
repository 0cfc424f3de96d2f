/**
 * The map's text: each file's path on a line of its own, then the signatures of its chosen
 * definitions in source order, indented by nesting (a method under its class). A chosen
 * definition brings its enclosing definitions along as context, as Aider's tree view does, so a
 * method never appears without the class it belongs to.
 */

/** One line of the map under a file. */
export interface MapLine {
  /** Unique within the tree: `path#qualifiedName`. */
  key: string
  line: number
  /** 0 for a top-level definition, 1 inside one, … */
  depth: number
  text: string
}

/** What rendering needs of a ranked definition. */
export interface Placed extends MapLine {
  path: string
  /** Enclosing definitions in the same file, outermost first. */
  ancestors: readonly MapLine[]
}

export interface RenderedMap {
  text: string
  files: number
  /** Definitions shown, context lines included. */
  symbols: number
}

const INDENT = '  '

/** Files in order of their best chosen definition; `chosen` is in rank order. */
export function renderMap(chosen: readonly Placed[]): RenderedMap {
  const byFile = new Map<string, Map<string, MapLine>>()
  for (const def of chosen) {
    let lines = byFile.get(def.path)
    if (!lines) byFile.set(def.path, (lines = new Map()))
    for (const ancestor of def.ancestors) lines.set(ancestor.key, ancestor)
    lines.set(def.key, def)
  }
  const out: string[] = []
  let symbols = 0
  for (const [path, lines] of byFile) {
    out.push(`${path}:`)
    // An enclosing definition starts on or before the lines it encloses.
    const sorted = [...lines.values()].sort((a, b) => a.line - b.line || a.depth - b.depth)
    for (const line of sorted) out.push(INDENT.repeat(line.depth + 1) + line.text)
    symbols += sorted.length
  }
  return { text: out.join('\n'), files: byFile.size, symbols }
}
