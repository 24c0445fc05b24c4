import { layoutMap } from '../../lib/map/layoutMap';
import { nearestRows, type Neighbour } from '../../lib/map/placeFromNeighbours';
import { seededRandom } from '../../lib/map/seededRandom';

const DIM = 32;
const BLOBS = 3;
const PER_BLOB = 200;

/** Items in BLOBS tight groups around random centres, in random order (as media ids are), plus one item without an embedding at the end. */
function blobs() {
  const random = seededRandom(1);
  const centres = Array.from({ length: BLOBS }, () => Float32Array.from({ length: DIM }, () => random() * 2 - 1));
  const blobOf = Array.from({ length: BLOBS * PER_BLOB }, (_, i) => ({ blob: i % BLOBS, key: random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ blob }) => blob);
  const vectors = blobOf.map((blob) => centres[blob].map((value) => value + (random() - 0.5) * 0.2));
  const cosine = (a: Float32Array, b: Float32Array) => {
    let dot = 0, na = 0, nb = 0;
    for (let d = 0; d < DIM; d++) [dot, na, nb] = [dot + a[d] * b[d], na + a[d] * a[d], nb + b[d] * b[d]];
    return dot / Math.sqrt(na * nb);
  };
  const neighbours: Neighbour[][] = vectors.map((vector, i) =>
    vectors
      .map((other, index) => ({ index, similarity: cosine(vector, other) }))
      .filter((hit) => hit.index !== i)
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 10),
  );
  return { vectors, neighbours, blobOf, count: vectors.length + 1, embedded: vectors.map((_, i) => i) };
}

describe('layoutMap', () => {
  const data = blobs();
  const run = (sampleSize: number) =>
    layoutMap({
      count: data.count,
      embedded: data.embedded,
      neighboursOf: (i) => data.neighbours[i] ?? [],
      vectorsOf: async (items) => items.map((i) => data.vectors[i]),
      sampleSize,
    });

  it('places every embedded item, and only those, at a finite point; the same input gives the same map', async () => {
    const { positions, placed } = await run(100);
    expect(Array.from(placed.subarray(0, data.embedded.length)).every((flag) => flag === 1)).toBe(true);
    expect(placed[data.count - 1]).toBe(0);
    expect(Array.from(positions.subarray(0, data.embedded.length * 2)).every(Number.isFinite)).toBe(true);
    expect(Array.from((await run(100)).positions)).toEqual(Array.from(positions));
  }, 60_000);

  it('keeps similar items together: each group sits apart from the others', async () => {
    // 600: UMAP lays out every item from their kNN lists; 400 and 100: a sample from its exact search (400 in two
    // batches of queries); 8: PCA does, and whole groups may have no sampled member.
    for (const sampleSize of [600, 400, 100, 8]) {
      const { positions } = await run(sampleSize);
      const centre = (blob: number) => {
        const members = data.embedded.filter((i) => data.blobOf[i] === blob);
        const sum = members.reduce(([x, y], i) => [x + positions[i * 2], y + positions[i * 2 + 1]], [0, 0]);
        return { members, x: sum[0] / members.length, y: sum[1] / members.length };
      };
      const centres = Array.from({ length: BLOBS }, (_, blob) => centre(blob));
      const spread = Math.max(...centres.map((c) => Math.max(...c.members.map((i) => Math.hypot(positions[i * 2] - c.x, positions[i * 2 + 1] - c.y)))));
      for (let a = 0; a < BLOBS; a++) {
        for (let b = a + 1; b < BLOBS; b++) expect(Math.hypot(centres[a].x - centres[b].x, centres[a].y - centres[b].y)).toBeGreaterThan(spread);
      }
    }
  }, 60_000);
});

describe('nearestRows', () => {
  it('finds, for each vector, the sample row of the highest cosine, as a scan of every row does', () => {
    const random = seededRandom(3);
    const unit = () => {
      const vector = Float32Array.from({ length: DIM }, () => random() * 2 - 1);
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    };
    const sample = Array.from({ length: 300 }, unit);
    const vectors = Array.from({ length: 50 }, unit);
    const matrix = new Float32Array(sample.length * DIM);
    sample.forEach((row, i) => matrix.set(row, i * DIM));
    const scanned = vectors.map((vector) => {
      const dots = sample.map((row) => row.reduce((sum, value, d) => sum + value * vector[d], 0));
      return dots.indexOf(Math.max(...dots));
    });
    expect(nearestRows(vectors, matrix, DIM)).toEqual(scanned);
  });
});
