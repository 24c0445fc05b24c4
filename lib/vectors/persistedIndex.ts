import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Index } from 'usearch';
import type { ObjectStore } from '../storage/objectStore';

/**
 * What a persisted index holds, published as `vector-indexes/<collection>/head.json` once its files
 * are whole: readers load it, then replay the rows with seq above `lastSeq`.
 */
export interface IndexHead {
  /** Of the key file; a head of another format is not loaded. */
  format: number;
  generation: string;
  dim: number;
  /** Names the immutable files `<generation>/<snapshot>.usearch` and `.keys` beside the head. */
  snapshot: string;
  lastSeq: string;
  nextKey: string;
  points: number;
  /** The snapshot this one replaced: removed when the next one is published (a slow reader may still be loading it). */
  previous?: string;
}

/** Point ids and the usearch keys (below 2^48) that stand for them in an index, both ways. */
export interface KeyMaps {
  keyOf: Map<string, number>;
  idOf: Map<number, string>;
}

const root = (collection: string) => {
  if (!/^[a-z0-9_]+$/.test(collection)) throw new Error(`not a vector collection name: ${collection}`);
  return `vector-indexes/${collection}`;
};
export const headKey = (collection: string) => `${root(collection)}/head.json`;
export const snapshotKeys = (collection: string, generation: string, snapshot: string) => ({
  index: `${root(collection)}/${generation}/${snapshot}.usearch`,
  ids: `${root(collection)}/${generation}/${snapshot}.keys`,
});

const FORMAT = 1;
const KEY_BYTES = 6;
const ID_BYTES = 36;
const ENTRY_BYTES = KEY_BYTES + ID_BYTES;

/** Per point, 6 bytes of key (little-endian) then the UUID as its 36 characters: decoding 100,000 takes tens of ms, not hundreds. */
function encodeKeys(keyOf: Map<string, number>): Buffer {
  const buffer = Buffer.alloc(keyOf.size * ENTRY_BYTES);
  let offset = 0;
  for (const [id, key] of keyOf) {
    if (id.length !== ID_BYTES) throw new Error(`not a UUID point id: ${id}`);
    buffer.writeUIntLE(key, offset, KEY_BYTES);
    buffer.write(id, offset + KEY_BYTES, ID_BYTES, 'latin1');
    offset += ENTRY_BYTES;
  }
  return buffer;
}

function decodeKeys(buffer: Buffer): KeyMaps {
  const keyOf = new Map<string, number>();
  const idOf = new Map<number, string>();
  for (let offset = 0; offset + ENTRY_BYTES <= buffer.length; offset += ENTRY_BYTES) {
    const key = buffer.readUIntLE(offset, KEY_BYTES);
    const id = buffer.toString('latin1', offset + KEY_BYTES, offset + ENTRY_BYTES);
    keyOf.set(id, key);
    idOf.set(key, id);
  }
  return { keyOf, idOf };
}

export async function readHead(objects: ObjectStore, collection: string): Promise<IndexHead | undefined> {
  const key = headKey(collection);
  if (!(await objects.exists(key))) return undefined;
  return JSON.parse((await objects.get(key)).toString('utf8')) as IndexHead;
}

/**
 * Loads (or views) the published index of `collection` into `index` when it belongs to `generation`
 * (a collection made again must not reuse the old one); answers its head and key maps, or undefined.
 */
export async function loadPersistedIndex(
  objects: ObjectStore,
  collection: string,
  expected: { generation: string; dim: number },
  index: Index,
  mode: 'load' | 'view',
): Promise<{ head: IndexHead; keys: KeyMaps } | undefined> {
  const head = await readHead(objects, collection);
  if (!head || head.format !== FORMAT || head.generation !== expected.generation || head.dim !== expected.dim) return undefined;
  const keys = snapshotKeys(collection, head.generation, head.snapshot);
  const maps = decodeKeys(await objects.get(keys.ids));
  // A view memory-maps the file (it stays mapped if the file is removed later); a load reads it whole into a mutable index.
  await objects.withLocalFile(keys.index, async (file) => (mode === 'view' ? index.view(file) : index.load(file)));
  return { head, keys: maps };
}

/**
 * Publishes `index` as the collection's persisted index: immutable files under new keys first, then
 * the head that names them (last writer wins: readers replay rows newer than any head's lastSeq).
 * A head already at or past `state.lastSeq` of the same generation is left alone. Everything is read
 * from the index synchronously, so the caller may change it once this returns a promise. `view`, when given, is
 * made a view of the saved file (the mapping outlives the file's removal).
 */
export async function publishIndex(
  objects: ObjectStore,
  scratchDir: string,
  collection: string,
  state: { generation: string; dim: number; index: Index; keyOf: Map<string, number>; lastSeq: string; nextKey: number },
  view?: Index,
): Promise<IndexHead | undefined> {
  const snapshot = randomUUID();
  const keys = snapshotKeys(collection, state.generation, snapshot);
  fs.mkdirSync(scratchDir, { recursive: true });
  const file = path.join(scratchDir, `${collection}-${snapshot}.usearch`);
  state.index.save(file);
  view?.view(file);
  const ids = encodeKeys(state.keyOf);
  const head: IndexHead = {
    format: FORMAT,
    generation: state.generation,
    dim: state.dim,
    snapshot,
    lastSeq: state.lastSeq,
    nextKey: state.nextKey.toString(),
    points: state.keyOf.size,
  };
  try {
    const current = await readHead(objects, collection);
    if (current?.generation === head.generation && BigInt(current.lastSeq) >= BigInt(head.lastSeq)) return undefined;
    if (current?.generation === head.generation) head.previous = current.snapshot;
    await objects.putFile(keys.index, file);
    await objects.put(keys.ids, ids);
    await objects.put(headKey(collection), Buffer.from(JSON.stringify(head)));
    if (current?.previous) await removeSnapshot(objects, collection, current.generation, current.previous);
    // The head of a dropped generation is of no use to anyone: nothing loads it any more.
    if (current && current.generation !== head.generation) await removeSnapshot(objects, collection, current.generation, current.snapshot);
    return head;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function removeSnapshot(objects: ObjectStore, collection: string, generation: string, snapshot: string): Promise<void> {
  const keys = snapshotKeys(collection, generation, snapshot);
  await objects.delete(keys.index);
  await objects.delete(keys.ids);
}

/** Removes the published index of a dropped collection (its head and the snapshots it names). */
export async function removePersistedIndex(objects: ObjectStore, collection: string): Promise<void> {
  const head = await readHead(objects, collection);
  if (!head) return;
  await objects.delete(headKey(collection));
  await removeSnapshot(objects, collection, head.generation, head.snapshot);
  if (head.previous) await removeSnapshot(objects, collection, head.generation, head.previous);
}
