/** A level's stored clusters as keptClusters matched them with its components. */
export interface StoredClusters {
  keptOf: Int32Array;
  kept: Uint8Array;
  storedOf: Int32Array;
  /** Each stored cluster's id, by its number in storedOf. */
  storedIds: string[];
  changed: Uint8Array;
  /** 1 per component label whose clusters may differ from the stored ones (the others are left as they are). */
  affected: Uint8Array;
}

/**
 * How a level's new components (`labels`: each item's component, labelled by its smallest member) take over the
 * stored clusters of the same level, so that a re-clustering writes only the memberships that changed: each component
 * keeps the stored cluster it shares the most members with (largest overlaps first, each stored cluster kept by one
 * component at most), and the rest open new clusters. `storedOf[i]` is item i's stored cluster (a small number), or -1
 * when the stored clustering does not hold it (a new item); `storedSizes[c]` is stored cluster c's member count.
 * Returns, per component label, the stored cluster it keeps (-1: a new cluster); per stored cluster whether it is
 * kept (else removed) and whether its members changed (its counts are written again). With `items`, only those are
 * matched: whole components, holding every member of the stored clusters they overlap.
 */
export function keptClusters(
  labels: Int32Array,
  storedOf: Int32Array,
  storedSizes: Int32Array,
  items: Int32Array = Int32Array.from(labels.keys()),
): { keptOf: Int32Array; kept: Uint8Array; changed: Uint8Array } {
  const count = labels.length;
  const clusters = storedSizes.length;
  const componentSize = new Int32Array(count);
  // Members each (component, stored cluster) pair shares, keyed label * clusters + cluster (below 2^53).
  const overlaps = new Map<number, number>();
  for (const i of items) {
    componentSize[labels[i]]++;
    if (storedOf[i] === -1) continue;
    const key = labels[i] * clusters + storedOf[i];
    overlaps.set(key, (overlaps.get(key) ?? 0) + 1);
  }
  const pairs = [...overlaps].sort(([keyA, a], [keyB, b]) => b - a || keyA - keyB);
  const keptOf = new Int32Array(count).fill(-1);
  const kept = new Uint8Array(clusters);
  const changed = new Uint8Array(clusters);
  for (const [key, overlap] of pairs) {
    const label = Math.floor(key / clusters);
    const cluster = key - label * clusters;
    if (keptOf[label] !== -1 || kept[cluster]) continue;
    keptOf[label] = cluster;
    kept[cluster] = 1;
    changed[cluster] = overlap === storedSizes[cluster] && overlap === componentSize[label] ? 0 : 1;
  }
  return { keptOf, kept, changed };
}

/**
 * A level's stored clusters around the changed items, matched with its components (keptClusters): the clusters of
 * the changed items, and the components holding a changed item or a member of those (`affected`, per component
 * label) with the stored clusters of all their members. `placeOf` finds a media id's place in `ids` (-1 if none);
 * `membershipsOf` reads the stored memberships of media or of clusters. The stored clustering being the
 * components of the analysed graph, a component nothing changed in is a stored cluster as it is, and every stored
 * cluster an affected component overlaps lies whole in the affected components: only those are read and matched.
 */
export async function storedClustersAround(
  labels: Int32Array,
  ids: readonly string[],
  placeOf: (id: string) => number,
  changed: Uint8Array,
  membershipsOf: (of: { column: 'media_id' | 'cluster_id'; ids: readonly string[] }) => Promise<Array<{ media_id: string; cluster_id: string }>>,
): Promise<StoredClusters> {
  const storedOf = new Int32Array(ids.length).fill(-1);
  const numberOf = new Map<string, number>();
  const storedIds: string[] = [];
  const sizes: number[] = [];
  const record = (rows: Array<{ media_id: string; cluster_id: string }>) => {
    for (const row of rows) {
      const place = placeOf(row.media_id);
      if (place === -1 || storedOf[place] !== -1) continue;
      let cluster = numberOf.get(row.cluster_id);
      if (cluster === undefined) {
        numberOf.set(row.cluster_id, (cluster = sizes.push(0) - 1));
        storedIds.push(row.cluster_id);
      }
      storedOf[place] = cluster;
      sizes[cluster]++;
    }
  };
  const idsWhere = (test: (i: number) => boolean) => ids.filter((_, i) => test(i));
  const holding = await membershipsOf({ column: 'media_id', ids: idsWhere((i) => changed[i] === 1) });
  record(await membershipsOf({ column: 'cluster_id', ids: [...new Set(holding.map((row) => row.cluster_id))] }));
  const affected = new Uint8Array(ids.length);
  for (let i = 0; i < ids.length; i++) if (changed[i] || storedOf[i] !== -1) affected[labels[i]] = 1;
  record(await membershipsOf({ column: 'media_id', ids: idsWhere((i) => affected[labels[i]] === 1 && storedOf[i] === -1 && !changed[i]) }));
  const members: number[] = [];
  for (let i = 0; i < ids.length; i++) if (affected[labels[i]]) members.push(i);
  return { ...keptClusters(labels, storedOf, Int32Array.from(sizes), Int32Array.from(members)), storedOf, storedIds, affected };
}
