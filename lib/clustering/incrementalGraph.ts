/** What a version's stored graph is over: ordinal o stands for ids[o]; searched[o] is 1 where o's list was searched. */
export interface StoredGraphItems {
  vectorSpaceId: string;
  ids: readonly string[];
  searched: Uint8Array;
}

/** The version's images and frames now, by id, and which are embedded. */
export interface CurrentItems {
  vectorSpaceId: string;
  ids: readonly string[];
  embedded: Uint8Array;
}

export type GraphExtension =
  | { kind: 'full'; reason: string }
  | {
      kind: 'incremental';
      /** The stored graph's ids, then the new items' (ordinals of the extended graph). */
      ids: string[];
      searched: Uint8Array;
      /** Ordinals of the items to search (new, or embedded since), ascending. */
      searching: number[];
    };

/**
 * Whether a reindex can extend the stored graph, and how (docs/decisions.md "Incremental reindex"): only when the
 * graph was searched in the same vector space, every item it holds is still in the version and still embedded (no
 * media removed), and the items to search are at most `maxShare` of the version; otherwise the reason for a full rebuild.
 */
export function extendGraph(stored: StoredGraphItems | undefined, current: CurrentItems, maxShare: number): GraphExtension {
  if (!stored) return { kind: 'full', reason: 'the version has no complete stored graph' };
  if (stored.vectorSpaceId !== current.vectorSpaceId) return { kind: 'full', reason: 'the vector space changed' };
  const placeOf = new Map<string, number>();
  current.ids.forEach((id, i) => placeOf.set(id, i));
  const ids = [...stored.ids];
  const searched = new Uint8Array(current.ids.length);
  const searching: number[] = [];
  for (const [ordinal, id] of stored.ids.entries()) {
    const place = placeOf.get(id);
    if (place === undefined) return { kind: 'full', reason: 'media were removed' };
    if (stored.searched[ordinal] && !current.embedded[place]) return { kind: 'full', reason: 'media lost their vectors' };
    placeOf.delete(id);
    searched[ordinal] = current.embedded[place];
    if (current.embedded[place] && !stored.searched[ordinal]) searching.push(ordinal);
  }
  for (const [id, place] of placeOf) {
    searched[ids.length] = current.embedded[place];
    if (current.embedded[place]) searching.push(ids.length);
    ids.push(id);
  }
  if (searching.length > maxShare * ids.length) return { kind: 'full', reason: `${searching.length} of ${ids.length} media are new` };
  return { kind: 'incremental', ids, searched, searching };
}

/** For each ordinal of a graph over `graphIds`, its place among the version's items (`placeOf`: their `placeMap`). */
export function placesIn(placeOf: ReadonlyMap<string, number>, graphIds: readonly string[]): Int32Array {
  return Int32Array.from(graphIds, (id) => {
    const place = placeOf.get(id);
    if (place === undefined) throw new Error(`item ${id} of the stored graph is not in the version`);
    return place;
  });
}

/** Each id's place in `ids`. */
export function placeMap(ids: readonly string[]): Map<string, number> {
  return new Map(ids.map((id, i) => [id, i]));
}

/** Place of `id` in the sorted `ids`, or -1. Postgres orders uuids as their lowercase text sorts. */
export function ordinalOf(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] === id) return middle;
    if (ids[middle] < id) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
