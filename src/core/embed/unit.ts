/** The vector scaled to length 1 (as is when already unit or zero), so a dot product is the cosine. */
export function unitVector(vector: Float32Array): Float32Array {
  let norm = 0
  for (const v of vector) norm += v * v
  norm = Math.sqrt(norm)
  if (norm === 0 || Math.abs(norm - 1) < 1e-6) return vector
  return vector.map((v) => v / norm)
}
