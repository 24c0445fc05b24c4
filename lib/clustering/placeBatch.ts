import type { SimilarityEdge } from './clusterByThresholds';
import { UnionFind } from './unionFind';

/** A batch item's neighbour that already belongs to cluster `clusterId` at the level being placed. */
export interface ClusterLink {
  item: number;
  clusterId: string;
  similarity: number;
}

/** Where a batch item goes: into an existing cluster, or a new cluster shared by its `group`. */
export type Placement = { clusterId: string } | { group: number };

/**
 * Places a batch of new items into an existing clustering at one cut-off without re-clustering:
 * batch items joined by edges at or above the cut-off form groups; a group whose strongest link to
 * an existing item clears the cut-off joins that item's cluster, the others become new clusters
 * (labelled by their smallest member). Existing clusters are never merged; a reindex does that.
 */
export function placeBatch(itemCount: number, innerEdges: SimilarityEdge[], links: ClusterLink[], cutoff: number): Placement[] {
  const sets = new UnionFind(itemCount);
  for (const edge of innerEdges) if (edge.similarity >= cutoff) sets.union(edge.a, edge.b);
  const strongest = new Map<number, ClusterLink>();
  for (const link of links) {
    if (link.similarity < cutoff) continue;
    const root = sets.find(link.item);
    const known = strongest.get(root);
    if (!known || known.similarity < link.similarity) strongest.set(root, link);
  }
  const smallestMember = new Map<number, number>();
  const placements: Placement[] = [];
  for (let i = 0; i < itemCount; i++) {
    const root = sets.find(i);
    const link = strongest.get(root);
    if (link) {
      placements.push({ clusterId: link.clusterId });
      continue;
    }
    if (!smallestMember.has(root)) smallestMember.set(root, i);
    placements.push({ group: smallestMember.get(root)! });
  }
  return placements;
}
