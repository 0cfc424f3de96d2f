import type { ImportReader } from '../imports.js'

/**
 * `require 'x'` and `require_relative './y'` with a literal path. A computed path
 * (`require File.join(…)`, an interpolated string) names no module knowable from the file alone.
 * Ruby binds no names on require, so `names` is always empty.
 */
export const readRubyRequire: ImportReader = (node, _source, imports, importedName) => {
  const method = node.childForFieldName('method')?.text
  const literal = node.childForFieldName('arguments')?.namedChildren[0]
  if (literal?.type !== 'string' || literal.namedChildCount !== 1) return
  const content = literal.namedChildren[0]
  if (content?.type !== 'string_content') return
  imports.push({
    module: content.text,
    names: [],
    line: node.startPosition.row + 1,
    relative: method === 'require_relative',
  })
  importedName(content)
}
