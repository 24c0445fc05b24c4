import { mergeIntoKeeper, type MemberFacts } from '../../lib/quality/duplicateMerge';

const member = (id: string, facts: Partial<MemberFacts> = {}): MemberFacts => ({ id, labels: [], tagIds: [], metadata: {}, ...facts });

describe('merging discarded copies into the keeper', () => {
  it('adds the labels, tags and metadata fields the keeper lacks, the most confident label of each name', () => {
    const keeper = member('k', { labels: [{ label: 'cat', source: 'model', confidence: 0.9 }], tagIds: ['t1'], metadata: { shot: { light: 'day', iso: 100 } } });
    const discarded = [
      member('a', { labels: [{ label: 'cat', source: 'model', confidence: 0.5 }, { label: 'pet', source: 'model', confidence: 0.4 }], tagIds: ['t1', 't2'], metadata: { shot: { iso: 100, light: 'day' }, author: 'ann' } }),
      member('b', { labels: [{ label: 'pet', source: 'custom', confidence: 0.7 }], metadata: { author: 'ann' } }),
    ];
    expect(mergeIntoKeeper(keeper, discarded, 'class')).toEqual({
      keeperId: 'k',
      labels: [{ label: 'pet', source: 'custom', confidence: 0.7 }],
      tagIds: ['t2'],
      metadata: { author: 'ann' },
      conflicts: [],
    });
  });

  it('lists a class or field the copies disagree on and keeps the keeper\'s own (or none)', () => {
    const merge = mergeIntoKeeper(
      member('k', { metadata: { class: 'mug ' } }),
      [member('a', { metadata: { class: 'mug', year: 2020 } }), member('b', { metadata: { class: 'cup', year: 2021 } })],
      'class',
    );
    expect(merge.metadata).toEqual({});
    expect(merge.conflicts).toEqual([
      { keeperId: 'k', field: 'class', kind: 'class', kept: 'mug ', discarded: [{ mediaId: 'b', value: 'cup' }] },
      { keeperId: 'k', field: 'year', kind: 'metadata', kept: null, discarded: [{ mediaId: 'a', value: 2020 }, { mediaId: 'b', value: 2021 }] },
    ]);
  });
});
