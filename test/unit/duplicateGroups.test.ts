import { groupDuplicates, type Pair } from '../../lib/quality/duplicateGroups';
import { scoreNeighbours, type NeighbourItem } from '../../lib/quality/neighbourScores';
import { DEFAULT_TIERS, DUPLICATE_TIERS, type DuplicateTier } from '../../lib/quality/pixelMatch';

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

  describe('a family of copies', () => {
    // An original, its byte copy, a 60 % resize, a re-encode and a crop, and a look-alike of another picture.
    const ids = ['original', 'copy', 'resize', 'reencode', 'crop', 'lookalike'];
    const near = (...list: Array<[string, number]>): NeighbourItem => ({ neighbours: list.map(([id, similarity]) => ({ index: ids.indexOf(id), similarity })) });
    const items = [
      near(['copy', 1], ['reencode', 0.97], ['resize', 0.96], ['crop', 0.95]),
      near(['original', 1], ['reencode', 0.97], ['resize', 0.96], ['crop', 0.95]),
      near(['reencode', 0.99], ['original', 0.96], ['copy', 0.96], ['crop', 0.94]),
      near(['resize', 0.99], ['original', 0.97], ['copy', 0.97], ['crop', 0.95]),
      near(['original', 0.95], ['copy', 0.95], ['reencode', 0.95], ['lookalike', 0.93]),
      near(['crop', 0.93], ['reencode', 0.91]),
    ];
    // What the pixel check says of each pair: the look-alike only resembles the family.
    const tierOf = (a: string, b: string): DuplicateTier =>
      [a, b].includes('lookalike') ? 'similar' : [a, b].sort().join() === 'copy,original' ? 'exact' : 'near_identical';
    const issues = scoreNeighbours(items, ids, { reference: { mean: 0.9, std: 0.01, items: 1 } }).map((score, i) => ({ mediaId: ids[i], details: score.issues[0].details! }));
    /** The pairs duplicate review reads at `tiers`: every pair of every issue, or only the one it names. */
    const pairsAt = (tiers: readonly DuplicateTier[], only: 'all' | 'named' = 'all'): Pair[] =>
      issues
        .flatMap(({ mediaId, details }) => (only === 'all' ? (details.pairs as Array<{ duplicate_of: string; similarity: number }>) : [details as { duplicate_of: string; similarity: number }]).map((pair) => ({ mediaId, ...pair })))
        .map(({ mediaId, duplicate_of, similarity }) => ({ mediaId, duplicateOf: duplicate_of, similarity, tier: tierOf(mediaId, duplicate_of), reason: 'as the pixel check says' }))
        .filter((pair) => tiers.includes(pair.tier));

    it('is one group when its members are joined by exact and near-identical pairs', () => {
      expect(groupDuplicates(pairsAt(DEFAULT_TIERS), []).map((group) => group.memberIds)).toEqual([['copy', 'crop', 'original', 'reencode', 'resize']]);
    });

    it('was split by pairing each copy with its nearest alone: resize with re-encode, original with its copy', () => {
      expect(groupDuplicates(pairsAt(DEFAULT_TIERS, 'named'), []).map((group) => group.memberIds)).toEqual([
        ['copy', 'crop', 'original'],
        ['reencode', 'resize'],
      ]);
    });

    it('takes in a look-alike by its similar pair only when similar is asked for', () => {
      expect(groupDuplicates(pairsAt(DUPLICATE_TIERS), []).map((group) => group.memberIds)).toEqual([['copy', 'crop', 'lookalike', 'original', 'reencode', 'resize']]);
      expect(groupDuplicates(pairsAt(['similar']), []).map((group) => group.memberIds)).toEqual([['crop', 'lookalike', 'reencode']]);
    });
  });
});
