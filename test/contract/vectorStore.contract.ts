import { randomUUID } from 'node:crypto';
import type { VectorStore } from '../../lib/vectors/vectorStore';

/** Deterministic pseudo-random unit vectors. */
export function unitVectors(count: number, dim: number, seed = 1): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from({ length: dim }, next);
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  });
}

/** The behaviour every VectorStore must have; run against the embedded store always and Qdrant when configured. */
export function vectorStoreContract(make: () => Promise<{ store: VectorStore; cleanup(): Promise<void> }>): void {
  let store: VectorStore;
  let cleanup: () => Promise<void>;
  const dim = 32;

  beforeAll(async () => {
    ({ store, cleanup } = await make());
  });
  afterAll(() => cleanup());

  const collection = () => `contract_${randomUUID().replace(/-/g, '')}`;

  it('creates collections idempotently and refuses another dimension', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    await store.ensureCollection(name, dim);
    await expect(store.ensureCollection(name, dim + 1)).rejects.toThrow(/dimension/);
    expect(await store.count(name)).toBe(0);
    await store.dropCollection(name);
  });

  it('stores, returns and finds points by cosine distance, nearest first', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    const vectors = unitVectors(50, dim);
    const ids = vectors.map(() => randomUUID());
    await store.upsert(name, ids.map((id, i) => ({ id, vector: vectors[i] })));
    expect(await store.count(name)).toBe(50);

    const fetched = await store.get(name, [ids[3], ids[7], randomUUID()]);
    expect([...fetched.keys()].sort()).toEqual([ids[3], ids[7]].sort());
    fetched.get(ids[3])!.forEach((value, i) => expect(value).toBeCloseTo(vectors[3][i], 5));

    const results = await store.searchMany(name, [vectors[0], vectors[1]], 5);
    expect(results).toHaveLength(2);
    expect(results[0][0].id).toBe(ids[0]);
    expect(results[0][0].distance).toBeLessThan(0.01);
    expect(results[1][0].id).toBe(ids[1]);
    for (const hits of results) {
      expect(hits).toHaveLength(5);
      for (let i = 1; i < hits.length; i++) expect(hits[i].distance).toBeGreaterThanOrEqual(hits[i - 1].distance - 1e-3);
    }
    // An opposite vector is at distance ~2.
    const [[farthest]] = await store.searchMany(name, [vectors[0].map((value) => -value)], 50).then((r) => [r[0].slice(-1)]);
    expect(farthest.id).toBe(ids[0]);
    expect(farthest.distance).toBeGreaterThan(1.9);
    await store.dropCollection(name);
  });

  it('warms a collection for its first search, and takes a missing one in its stride', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    const vectors = unitVectors(20, dim, 17);
    const ids = vectors.map(() => randomUUID());
    await store.upsert(name, ids.map((id, i) => ({ id, vector: vectors[i] })));
    await store.warm(name);
    await store.warm(collection());
    expect((await store.searchMany(name, [vectors[3]], 1))[0][0].id).toBe(ids[3]);
    await store.dropCollection(name);
  });

  it('replaces a point on upsert and forgets it on delete', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    const [a, b, c] = unitVectors(3, dim, 7);
    const [idA, idB] = [randomUUID(), randomUUID()];
    await store.upsert(name, [{ id: idA, vector: a }, { id: idB, vector: b }]);
    expect((await store.searchMany(name, [c], 1))[0][0].id).not.toBe(undefined);

    await store.upsert(name, [{ id: idA, vector: c }]);
    expect(await store.count(name)).toBe(2);
    const [[nearestToC]] = await store.searchMany(name, [c], 1);
    expect(nearestToC).toEqual({ id: idA, distance: expect.any(Number) });
    expect(nearestToC.distance).toBeLessThan(0.01);

    await store.delete(name, [idA]);
    expect(await store.count(name)).toBe(1);
    expect((await store.get(name, [idA])).size).toBe(0);
    const [hits] = await store.searchMany(name, [c], 5);
    expect(hits.map((hit) => hit.id)).toEqual([idB]);
    await store.dropCollection(name);
  });

  it('takes the same id twice in one upsert, keeping the last vector', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    const [a, b] = unitVectors(2, dim, 11);
    const id = randomUUID();
    await store.upsert(name, [{ id, vector: a }, { id, vector: b }]);
    expect(await store.count(name)).toBe(1);
    const [[nearestToB]] = await store.searchMany(name, [b], 1);
    expect(nearestToB.id).toBe(id);
    expect(nearestToB.distance).toBeLessThan(0.01);
    await store.dropCollection(name);
  });

  it('gets and deletes more ids at once than a query has bind parameters (70,000)', async () => {
    const name = collection();
    await store.ensureCollection(name, 4);
    const ids = Array.from({ length: 70_000 }, () => randomUUID());
    const vectors = unitVectors(ids.length, 4);
    for (let i = 0; i < ids.length; i += 10_000) await store.upsert(name, ids.slice(i, i + 10_000).map((id, j) => ({ id, vector: vectors[i + j] })));
    expect((await store.get(name, ids)).size).toBe(ids.length);
    await store.delete(name, ids.slice(0, 69_000));
    expect(await store.count(name)).toBe(1_000);
    await store.dropCollection(name);
  }, 120_000);

  it('drops a collection with its points', async () => {
    const name = collection();
    await store.ensureCollection(name, dim);
    await store.upsert(name, [{ id: randomUUID(), vector: unitVectors(1, dim)[0] }]);
    expect(await store.listCollections()).toContain(name);
    await store.dropCollection(name);
    expect(await store.listCollections()).not.toContain(name);
    await store.ensureCollection(name, dim);
    expect(await store.count(name)).toBe(0);
    expect(await store.searchMany(name, unitVectors(1, dim), 3)).toEqual([[]]);
    await store.dropCollection(name);
  });
}
