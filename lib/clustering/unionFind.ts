/** Disjoint sets over 0..n-1 with path halving and union by size. */
export class UnionFind {
  private readonly parent: Int32Array;
  private readonly size: Int32Array;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    this.size = new Int32Array(n).fill(1);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }

  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]];
      i = this.parent[i];
    }
    return i;
  }

  union(a: number, b: number): void {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if (this.size[ra] < this.size[rb]) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] += this.size[rb];
  }
}

/** Each item's component, named by its smallest member index. */
export function componentLabels(sets: UnionFind, count: number): Int32Array {
  const smallestMember = new Int32Array(count).fill(-1);
  const labels = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const root = sets.find(i);
    if (smallestMember[root] === -1) smallestMember[root] = i;
    labels[i] = smallestMember[root];
  }
  return labels;
}
