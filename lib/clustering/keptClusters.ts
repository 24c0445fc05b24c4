/**
 * Which components of one clustering level (`labels`: each item's component, labelled by its smallest member) a
 * stored clustering of the same level already holds: a component is kept when all its members are in one stored
 * cluster that holds exactly them. `storedOf[i]` is the stored cluster (a small number) of item i, or -1 when the
 * stored clustering does not hold it (a new item); `storedSizes[c]` is stored cluster c's member count.
 * Returns per component label the stored cluster it keeps (-1: written anew) and which stored clusters are kept.
 */
export function keptClusters(labels: Int32Array, storedOf: Int32Array, storedSizes: Int32Array): { keptOf: Int32Array; kept: Uint8Array } {
  const count = labels.length;
  const UNSEEN = -2;
  const keptOf = new Int32Array(count).fill(UNSEEN);
  const size = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const label = labels[i];
    size[label]++;
    if (keptOf[label] === UNSEEN) keptOf[label] = storedOf[i];
    else if (keptOf[label] !== storedOf[i]) keptOf[label] = -1;
  }
  const kept = new Uint8Array(storedSizes.length);
  for (let label = 0; label < count; label++) {
    if (labels[label] !== label) continue;
    const stored = keptOf[label];
    if (stored >= 0 && storedSizes[stored] === size[label]) kept[stored] = 1;
    else keptOf[label] = -1;
  }
  return { keptOf, kept };
}
