import type { ImportReader } from '../imports.js'

/**
 * `#include "x/y.h"` (searched next to the including file first: relative) and `#include <x.h>`
 * (system/include-path header). An include binds no names, so nothing is reported through
 * `importedName`; a computed `#include MACRO` names no module and is skipped.
 */
export const readCInclude: ImportReader = (node, _source, imports) => {
  const path = node.childForFieldName('path')
  if (!path) return
  let module: string
  let relative: boolean
  if (path.type === 'string_literal') {
    // The content child is absent for `""`, which includes nothing.
    const content = path.namedChildren.find((child) => child?.type === 'string_content')
    if (!content) return
    module = content.text
    relative = true
  } else if (path.type === 'system_lib_string') {
    module = path.text.slice(1, -1).trim()
    relative = false
  } else {
    return
  }
  if (!module) return
  imports.push({ module, names: [], line: node.startPosition.row + 1, relative })
}
