import { groupDuplicates, suggestKeeper, type Candidate } from '../../lib/quality/duplicateGroups';

const pair = (mediaId: string, duplicateOf: string, similarity = 0.95) => ({ mediaId, duplicateOf, similarity });
const candidate = (id: string, figures: Partial<Candidate> = {}): Candidate => ({
  id,
  fileName: `${id}.jpg`,
  width: 100,
  height: 100,
  sizeBytes: 1000,
  issues: [],
  ...figures,
});

describe('duplicate groups', () => {
  it('joins pairs into groups, largest first, and leaves single images out', () => {
    const groups = groupDuplicates([pair('b', 'a'), pair('c', 'b', 0.97), pair('e', 'd', 0.91)], []);
    expect(groups.map((group) => [group.id, group.state, group.memberIds, group.similarity])).toEqual([
      ['a', 'open', ['a', 'b', 'c'], 0.97],
      ['d', 'open', ['d', 'e'], 0.91],
    ]);
  });

  it('keeps a decided group whole and decided, and marks it changed when a copy joins it', () => {
    const decided = [
      { mediaId: 'a', decisionId: 'd1', role: 'keep' as const },
      { mediaId: 'b', decisionId: 'd1', role: 'discard' as const },
    ];
    // At a similarity where the pair is gone, the decision still holds its members together.
    expect(groupDuplicates([], decided)).toEqual([{ id: 'd1', state: 'decided', memberIds: ['a', 'b'], similarity: 0 }]);
    expect(groupDuplicates([pair('b', 'a'), pair('n', 'a')], decided).map((group) => [group.id, group.state, group.memberIds])).toEqual([['a', 'changed', ['a', 'b', 'n']]]);
  });

  it('suggests the copy with fewest issues, then most pixels, then the largest file, and says why', () => {
    expect(suggestKeeper([candidate('crop', { width: 50, height: 50 }), candidate('full', { width: 400, height: 300, sizeBytes: 2_500_000 })])).toEqual({
      mediaId: 'full',
      reasons: ['highest resolution (400×300)', 'largest file (2.50 MB)'],
    });
    expect(suggestKeeper([candidate('big', { width: 400, height: 300, issues: ['blur'] }), candidate('sharp')])).toEqual({ mediaId: 'sharp', reasons: ['no quality issues'] });
    expect(suggestKeeper([candidate('small'), candidate('large', { sizeBytes: 24_400 })]).reasons).toEqual(['largest file (24 kB)']);
    expect(suggestKeeper([candidate('b'), candidate('a')])).toEqual({ mediaId: 'a', reasons: ['as good as the others: first by name'] });
    expect(suggestKeeper([candidate('new', { width: 900, height: 900 }), candidate('old')], new Set(['old']))).toEqual({
      mediaId: 'old',
      reasons: ['kept when this group was decided before'],
    });
  });
});
