/**
 * Frees an array's memory now rather than at the next full collection: its buffer is transferred to
 * a clone nothing keeps, which the next minor collection frees (Node 20 has no
 * ArrayBuffer.prototype.transfer). A typed array of tens of megabytes outlives the build step that
 * dropped it until a full collection, which a thread with a small heap runs seldom: the BM25 spill's
 * old postings stood beside the segment encoded from them. Only for an array nothing else views.
 */
export function release(array: ArrayBufferView): void {
  const buffer = array.buffer
  if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) structuredClone(buffer, { transfer: [buffer] })
}
