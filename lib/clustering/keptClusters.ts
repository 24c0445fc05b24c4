/**
 * How a level's new components (`labels`: each item's component, labelled by its smallest member) take over the
 * stored clusters of the same level, so that a re-clustering writes only the memberships that changed: each component
 * keeps the stored cluster it shares the most members with (largest overlaps first, each stored cluster kept by one
 * component at most), and the rest open new clusters. `storedOf[i]` is item i's stored cluster (a small number), or -1
 * when the stored clustering does not hold it (a new item); `storedSizes[c]` is stored cluster c's member count.
 * Returns, per component label, the stored cluster it keeps (-1: a new cluster); per stored cluster whether it is
 * kept (else removed) and whether its members changed (its counts are written again).
 */
export function keptClusters(labels: Int32Array, storedOf: Int32Array, storedSizes: Int32Array): { keptOf: Int32Array; kept: Uint8Array; changed: Uint8Array } {
  const count = labels.length;
  const clusters = storedSizes.length;
  const componentSize = new Int32Array(count);
  // Members each (component, stored cluster) pair shares, keyed label * clusters + cluster (below 2^53).
  const overlaps = new Map<number, number>();
  for (let i = 0; i < count; i++) {
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
