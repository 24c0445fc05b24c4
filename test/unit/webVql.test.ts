import { parseVql } from '../../lib/vql/parseVql';

// The web app is an ES module package: imported dynamically from this CommonJS test (jest.config.js maps the .js).
const web = import('../../web/src/features/explore/vql.js');
let vql: Awaited<typeof web>;
beforeAll(async () => {
  vql = await web;
});
type VqlControls = Parameters<typeof vql.toVql>[0];

/** Every control the web's Explore filters hold, set. */
const everything: VqlControls = {
  issue: 'mislabel',
  issueDetails: { label: ['coat'], suggested_label: ['shirt'] },
  duplicates: 0.95,
  uniqueness: 0.2,
  text: 'a dog on a beach',
  labels: ['cat'],
  classes: ['Ankle boot', 'Sneaker'],
  tags: ['6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11'],
  map: { layout_id: '0b3f0c7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f', polygon: [[0, 0], [1, 0], [1, 1]] },
};

describe("the web app's VQL filters", () => {
  it('writes VQL the API accepts, one element per control, and reads back the same controls', () => {
    const raw = JSON.stringify(vql.toVql(everything));
    expect(parseVql(raw).map((filter) => filter.key).sort()).toEqual(['duplicates', 'ground_truth', 'issues', 'labels', 'map', 'tags', 'text', 'uniqueness']);
    expect(vql.fromVql(raw)).toEqual(everything);
  });

  it('offers exactly the issue types and detail fields the API filters on', () => {
    for (const issue of vql.ISSUE_TYPES) expect(() => parseVql(JSON.stringify(vql.toVql({ issue })))).not.toThrow();
    for (const field of vql.ISSUE_DETAIL_FIELDS) expect(() => parseVql(JSON.stringify(vql.toVql({ issue: 'mislabel', issueDetails: { [field]: ['x'] } })))).not.toThrow();
    expect(() => parseVql(JSON.stringify([{ issues: { op: 'issue', value: 'not-an-issue', mode: 'in' } }]))).toThrow(/value must be one of/);
  });

  it('leaves out empty controls and trims the text', () => {
    expect(vql.toVql({ text: '   ', labels: [], classes: [], tags: [] })).toEqual([]);
    expect(vql.toVql({ text: '  cats ' })).toEqual([{ text: { op: 'fts', value: 'cats' } }]);
  });

  it('reads a URL it did not write as no filter, and keeps what it knows of one it half knows', () => {
    for (const raw of [null, '', 'not json', '{"a":1}', '42']) expect(vql.fromVql(raw)).toEqual({});
    expect(vql.fromVql(JSON.stringify([{ issues: { value: 'nonsense' } }, { text: { value: 'kept' } }]))).toEqual({ text: 'kept' });
  });
});
