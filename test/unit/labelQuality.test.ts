import { checkLabels, leakagePairs, neighbourProbabilities, summariseLabelQuality, type LabelledItem } from '../../lib/quality/labelQuality';
import type { Neighbour } from '../../lib/quality/neighbourScores';

/**
 * Points on a line in groups of `size` (group g holds class g); everyone's neighbours are the others
 * of their group at similarity 0.95, then the next group's at 0.5. `flips` gives some items another label.
 */
function groups(count: number, size: number, flips: Record<number, number> = {}): LabelledItem[] {
  const items: LabelledItem[] = [];
  for (let g = 0; g < count; g++) {
    for (let k = 0; k < size; k++) {
      const i = g * size + k;
      const neighbours: Neighbour[] = [];
      for (let m = 0; m < size; m++) if (m !== k) neighbours.push({ index: g * size + m, similarity: 0.95 });
      const next = ((g + 1) % count) * size;
      neighbours.push({ index: next, similarity: 0.5 });
      items.push({ label: flips[i] ?? g, neighbours });
    }
  }
  return items;
}

describe('label quality', () => {
  it("gives each item its neighbours' class and never counts its own label", () => {
    const items = groups(2, 6, { 0: 1 });
    const probabilities = neighbourProbabilities(items, 2);
    // Item 0 says class 1, but its five group neighbours say class 0.
    expect(probabilities[0][0]).toBeGreaterThan(0.9);
    // Item 1's neighbours include item 0 (class 1): its class-0 probability drops a little, not to zero.
    expect(probabilities[1][0]).toBeLessThan(probabilities[0][0]);
    expect(probabilities[1][0]).toBeGreaterThan(0.7);
    for (const p of probabilities) expect(p.reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 6);
  });

  it('flags exactly the flipped labels and suggests the true class', () => {
    const flips = { 3: 2, 17: 0, 25: 1 };
    const { verdicts, errorRates } = checkLabels(groups(3, 10, flips), 3);
    const flagged = verdicts.flatMap((verdict, i) => (verdict?.flagged ? [i] : []));
    expect(flagged).toEqual([3, 17, 25]);
    expect(verdicts[3]!.suggested).toBe(0);
    expect(verdicts[17]!.suggested).toBe(1);
    expect(verdicts[25]!.suggested).toBe(2);
    expect(verdicts[3]!.score).toBeGreaterThan(0.9);
    expect(verdicts[4]!.score).toBeLessThan(0.2);
    // One wrong label in each class of ten.
    for (const rate of errorRates) expect(rate).toBeCloseTo(0.1, 5);
  });

  it('flags nothing in clean data and leaves unlabelled items out', () => {
    const items = groups(3, 8);
    items[5] = { ...items[5], label: -1 };
    const { verdicts } = checkLabels(items, 3);
    expect(verdicts[5]).toBeUndefined();
    expect(verdicts.filter((verdict) => verdict?.flagged)).toHaveLength(0);
  });

  it('finds near-duplicates in different splits once per pair', () => {
    const items = [
      { split: 'train', neighbours: [{ index: 1, similarity: 0.97 }, { index: 2, similarity: 0.95 }] },
      { split: 'test', neighbours: [{ index: 0, similarity: 0.97 }, { index: 2, similarity: 0.93 }] },
      { split: 'train', neighbours: [{ index: 0, similarity: 0.95 }, { index: 3, similarity: 0.85 }] },
      { split: 'val', neighbours: [{ index: 2, similarity: 0.85 }] },
      { split: null, neighbours: [{ index: 0, similarity: 0.99 }] },
    ];
    expect(leakagePairs(items)).toEqual([
      { a: 0, b: 1, similarity: 0.97 },
      { a: 1, b: 2, similarity: 0.93 },
    ]);
  });

  it('reports counts, error rates, confused pairs and leakage by split pair', () => {
    const items = groups(3, 10, { 3: 2, 4: 2, 17: 0 });
    const check = checkLabels(items, 3);
    const report = summariseLabelQuality({
      fields: { label: 'class', split: 'split' },
      classes: ['cat', 'dog', 'owl'],
      labels: items.map((item) => item.label),
      splits: items.map((_, i) => (i % 2 === 0 ? 'train' : 'test')),
      check,
      leakage: [
        { a: 0, b: 1, similarity: 0.95 },
        { a: 2, b: 3, similarity: 0.92 },
      ],
      checkedAt: new Date('2026-11-30T00:00:00Z'),
    });
    expect(report).toMatchObject({ label_field: 'class', split_field: 'split', n_media: 30, n_labelled: 30, n_flagged: 3 });
    expect(report.classes.find((c) => c.label === 'owl')).toMatchObject({ count: 12, flagged: 2 });
    expect(report.confused_pairs[0]).toEqual({ label: 'owl', suggested_label: 'cat', count: 2 });
    expect(report.confused_pairs[1]).toEqual({ label: 'cat', suggested_label: 'dog', count: 1 });
    expect(report.leakage).toEqual({ pairs: 2, by_splits: [{ splits: ['test', 'train'], pairs: 2 }] });
    expect(report.estimated_error_rate).toBeGreaterThan(0);
  });
});
