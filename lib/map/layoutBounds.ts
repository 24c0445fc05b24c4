/** The box around the first `count` points of `positions` (x0, y0, x1, y1, …). */
export function layoutBounds(positions: Float32Array, count = positions.length / 2) {
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < count; i++) {
    minX = Math.min(minX, positions[i * 2]);
    maxX = Math.max(maxX, positions[i * 2]);
    minY = Math.min(minY, positions[i * 2 + 1]);
    maxY = Math.max(maxY, positions[i * 2 + 1]);
  }
  return { minX, maxX, minY, maxY };
}
