import type { LineIndex } from './lines.js'
import { MAX_CHUNK_CHARS, MIN_CHUNK_CHARS, type Piece } from './split.js'

/** A piece's final lines (0-based, inclusive, no blank line at either end). */
export interface Span {
  first: number
  last: number
  piece: Piece
}

/**
 * Trims pieces to their non-blank lines and merges leftovers: a small piece that is no
 * definition joins the piece before it (same container level, within the maximum), else the
 * ordinary piece after it; a small piece left alone before a member of a split container (its
 * header) joins that member. A definition piece never joins an earlier piece, so each
 * definition still starts a chunk.
 */
export function layoutPieces(pieces: readonly Piece[], lines: LineIndex): Span[] {
  const spans: Span[] = []
  let stranded: Span | undefined
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!
    let first = piece.line
    let last = (i + 1 < pieces.length ? pieces[i + 1]!.line : lines.count) - 1
    while (first <= last && lines.isBlank(first)) first++
    while (last >= first && lines.isBlank(last)) last--
    if (first > last) continue

    const span: Span = { first, last, piece }
    const small = size(lines, first, last) < MIN_CHUNK_CHARS
    const previous = spans[spans.length - 1]
    if (small && !piece.definition && previous?.piece.contexts === piece.contexts && size(lines, previous.first, last) <= MAX_CHUNK_CHARS) {
      previous.last = last
      continue
    }
    // A split container's lone header goes with its first member.
    const member = piece.contexts.length > (stranded?.piece.contexts.length ?? Infinity)
    if (
      stranded && (stranded.piece.definition ? member : !piece.definition) &&
      size(lines, stranded.first, last) <= MAX_CHUNK_CHARS
    ) {
      span.first = stranded.first
      spans.pop()
      stranded = undefined
    } else stranded = small ? span : undefined
    spans.push(span)
  }
  return spans
}

function size(lines: LineIndex, first: number, last: number): number {
  return lines.end(last) - lines.start(first)
}
