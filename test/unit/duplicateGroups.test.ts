import { groupDuplicates } from '../../lib/quality/duplicateGroups';

const pair = (mediaId: string, duplicateOf: string, similarity = 0.95) => ({ mediaId, duplicateOf, similarity, tier: 'near_identical' as const, reason: 'same picture' });
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
    expect(groupDuplicates([], decided)).toEqual([{ id: 'd1', state: 'decided', memberIds: ['a', 'b'], similarity: 0, pairs: [] }]);
    expect(groupDuplicates([pair('b', 'a'), pair('n', 'a')], decided).map((group) => [group.id, group.state, group.memberIds])).toEqual([['a', 'changed', ['a', 'b', 'n']]]);
  });

});
