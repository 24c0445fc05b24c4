import { neighbourStats, scoreNeighbours, type NeighbourItem } from '../../lib/quality/neighbourScores';

/** An item whose nearest neighbours (indexes 0, 1, ...) have these similarities. */
function item(similarities: number[], group?: string): NeighbourItem {
  return { neighbours: similarities.map((similarity, index) => ({ index, similarity })), group };
}

const idsOf = (count: number) => Array.from({ length: count }, (_, i) => `media-${i}`);

/** A duplicates issue's details: its nearest pair, and every pair nearest first. */
const duplicateDetails = (...pairs: Array<[string, number]>) => ({
  duplicate_of: pairs[0][0],
  similarity: pairs[0][1],
  pairs: pairs.map(([duplicate_of, similarity]) => ({ duplicate_of, similarity })),
});

describe('scoreNeighbours: uniqueness', () => {
  it('grows with the distance to the nearest neighbour, 0 for an exact copy, 1 from distance 0.5 or with no neighbour', () => {
    const items = [item([1]), item([0.9]), item([0.75]), item([0.5]), item([0.1]), item([])];
    const uniqueness = scoreNeighbours(items, idsOf(items.length)).map((score) => score.uniqueness);
    expect(uniqueness[0]).toBe(0);
    expect(uniqueness[1]).toBeCloseTo(0.2);
    expect(uniqueness[2]).toBeCloseTo(0.5);
    expect(uniqueness[3]).toBe(1);
    expect(uniqueness[4]).toBe(1);
    expect(uniqueness[5]).toBe(1);
  });
});

describe('scoreNeighbours: duplicates', () => {
  it('flags an item whose nearest neighbour is at similarity 0.9 or more, naming that neighbour', () => {
    const items = [
      { neighbours: [{ index: 2, similarity: 0.97 }] },
      { neighbours: [{ index: 2, similarity: 0.9 }] },
      { neighbours: [{ index: 0, similarity: 0.89 }] },
    ];
    const scores = scoreNeighbours(items, ['a', 'b', 'c']);
    expect(scores[0].issues).toEqual([{ type: 'duplicates', confidence: 0.97, details: duplicateDetails(['c', 0.97]) }]);
    expect(scores[1].issues).toEqual([{ type: 'duplicates', confidence: 0.9, details: duplicateDetails(['c', 0.9]) }]);
    expect(scores[2].issues).toEqual([]);
  });

  it('never calls frames of the same video duplicates of each other, but does across videos', () => {
    const items: NeighbourItem[] = [
      { group: 'video-1', neighbours: [{ index: 1, similarity: 0.99 }, { index: 2, similarity: 0.95 }] },
      { group: 'video-1', neighbours: [{ index: 0, similarity: 0.99 }] },
      { group: 'video-2', neighbours: [{ index: 0, similarity: 0.95 }] },
      // An image (no group) is a duplicate of a near-identical frame.
      { neighbours: [{ index: 1, similarity: 0.93 }] },
    ];
    const scores = scoreNeighbours(items, ['f0', 'f1', 'g0', 'img']);
    expect(scores[0].issues).toEqual([{ type: 'duplicates', confidence: 0.95, details: duplicateDetails(['g0', 0.95]) }]);
    expect(scores[1].issues).toEqual([]);
    expect(scores[2].issues.map((found) => found.details?.duplicate_of)).toEqual(['f0']);
    expect(scores[3].issues.map((found) => found.details?.duplicate_of)).toEqual(['f1']);
  });

  it('asks groupOf for neighbours outside the scored items', () => {
    // The batch holds one frame; its neighbours 7 and 8 are existing media of the dataset.
    const items: NeighbourItem[] = [{ group: 'video-1', neighbours: [{ index: 7, similarity: 0.98 }, { index: 8, similarity: 0.92 }] }];
    const groups: Record<number, string> = { 7: 'video-1', 8: 'video-3' };
    const ids = Object.assign(idsOf(9), { 8: 'other-video-frame' });
    const [score] = scoreNeighbours(items, ids, { groupOf: (index) => groups[index], reference: { mean: 0.9, std: 0.01, items: 1 } });
    expect(score.issues).toEqual([{ type: 'duplicates', confidence: 0.92, details: duplicateDetails(['other-video-frame', 0.92]) }]);
  });

  it('keeps the three nearest at 0.9 or more as pairs, the nearest first and named by the issue', () => {
    const items: NeighbourItem[] = [
      { neighbours: [0.99, 0.97, 0.95, 0.93, 0.91].map((similarity, i) => ({ index: i + 1, similarity })) },
      { neighbours: [{ index: 2, similarity: 0.96 }, { index: 3, similarity: 0.89 }] },
    ];
    const scores = scoreNeighbours(items, idsOf(6), { reference: { mean: 0.9, std: 0.01, items: 1 } });
    expect(scores[0].issues).toEqual([{ type: 'duplicates', confidence: 0.99, details: duplicateDetails(['media-1', 0.99], ['media-2', 0.97], ['media-3', 0.95]) }]);
    expect(scores[1].issues).toEqual([{ type: 'duplicates', confidence: 0.96, details: duplicateDetails(['media-2', 0.96]) }]);
  });
});

describe('scoreNeighbours: outliers', () => {
  /** 18 ordinary items (five neighbours at 0.8), one like them but with far 6th+ neighbours, one with far neighbours. */
  function dataset(): NeighbourItem[] {
    return [
      ...Array.from({ length: 18 }, () => item([0.8, 0.8, 0.8, 0.8, 0.8])),
      item([0.8, 0.8, 0.8, 0.8, 0.8, 0, 0, 0, 0, 0]),
      item([0.8, 0.2, 0.2, 0.2, 0.2]),
    ];
  }

  it('flags an item whose five nearest are on average more than 2.5 standard deviations less similar than usual', () => {
    const scores = scoreNeighbours(dataset(), idsOf(20));
    // Mean of the 5-nearest averages: (19 x 0.8 + 0.32) / 20 = 0.776; std 0.10461; the last item's z = 0.456 / 0.10461.
    const outliers = scores.flatMap((score, index) => score.issues.filter((found) => found.type === 'outliers').map((found) => ({ index, found })));
    expect(outliers).toHaveLength(1);
    expect(outliers[0].index).toBe(19);
    expect(outliers[0].found.details?.z_score).toBeCloseTo(4.359, 2);
    expect(outliers[0].found.confidence).toBeGreaterThan(0.5);
    expect(outliers[0].found.confidence).toBeLessThanOrEqual(1);
  });

  it('needs at least 20 items, and some spread, to call anything an outlier', () => {
    const small = dataset().slice(1);
    expect(scoreNeighbours(small, idsOf(small.length)).flatMap((score) => score.issues)).toEqual([]);
    const uniform = Array.from({ length: 25 }, () => item([0.5, 0.5, 0.5, 0.5, 0.5]));
    expect(scoreNeighbours(uniform, idsOf(25)).flatMap((score) => score.issues)).toEqual([]);
  });

  it('judges against a given reference instead of the scored items', () => {
    const reference = { mean: 0.8, std: 0.05, items: 100 };
    const items = [item([0.6, 0.6, 0.6, 0.6, 0.6]), item([0.7, 0.7, 0.7, 0.7, 0.7])];
    const scores = scoreNeighbours(items, idsOf(2), { reference });
    // z = 4 and z = 2 against the reference; the items alone would be too few to judge.
    expect(scores[0].issues.map((found) => [found.type, found.details?.z_score])).toEqual([['outliers', expect.closeTo(4, 6)]]);
    expect(scores[1].issues).toEqual([]);
    expect(scoreNeighbours(items, idsOf(2), { reference: { ...reference, items: 19 } }).flatMap((score) => score.issues)).toEqual([]);
  });
});

describe('neighbourStats', () => {
  it('is the mean and standard deviation of each item’s mean similarity to its five nearest', () => {
    const stats = neighbourStats([item([0.9, 0.9, 0.9, 0.9, 0.9, 0.1]), item([0.7, 0.6, 0.5, 0.4, 0.3]), item([])]);
    // Per item: 0.9 (the 6th neighbour ignored), 0.5, and 0 for no neighbours.
    expect(stats.items).toBe(3);
    expect(stats.mean).toBeCloseTo(1.4 / 3);
    expect(stats.std).toBeCloseTo(Math.sqrt(((0.9 - 1.4 / 3) ** 2 + (0.5 - 1.4 / 3) ** 2 + (1.4 / 3) ** 2) / 3));
    expect(neighbourStats([])).toEqual({ mean: 0, std: 0, items: 0 });
  });
});
