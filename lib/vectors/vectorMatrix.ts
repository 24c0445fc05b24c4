/** `vectors` (`dim` each) as one row-major matrix, the form usearch's batch and exact searches take. */
export function vectorMatrix(vectors: readonly Float32Array[], dim: number): Float32Array {
  const matrix = new Float32Array(vectors.length * dim);
  vectors.forEach((vector, row) => matrix.set(vector, row * dim));
  return matrix;
}
