import { splitVql } from '../../lib/vql/compileVql';
import { MAX_POLYGON_VERTICES, parseVql, VqlError } from '../../lib/vql/parseVql';

const tag = '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11';

const LAYOUT = '6f1c2a52-3b7e-4f55-9d0a-1d2e3f405162';

describe('parseVql', () => {
  it('parses every key of the spec, combined with AND', () => {
    const filters = parseVql(
      JSON.stringify([
        { text: { op: 'fts', value: 'red car' } },
        { text: { op: 'semantic', value: 'a dog on a beach', threshold: 0.4 } },
        { labels: { op: 'one_of', value: ['cat', 'dog'] } },
        { tags: { op: 'is', value: [tag] } },
        { issues: { op: 'issue', value: 'blur', mode: 'in' } },
        { duplicates: { op: 'duplicates', value: 0.9 } },
        { uniqueness: { op: 'uniqueness', value: 0.5 } },
        { issues: { op: 'issue', value: 'mislabel', details: { label: ['cat'], suggested_label: ['dog'] } } },
      ]),
    );
    expect(filters).toEqual([
      { key: 'text', op: 'fts', value: 'red car' },
      { key: 'text', op: 'semantic', value: 'a dog on a beach', threshold: 0.4 },
      { key: 'labels', op: 'one_of', value: ['cat', 'dog'] },
      { key: 'tags', op: 'is', value: [tag] },
      { key: 'issues', op: 'issue', value: 'blur', mode: 'in' },
      { key: 'duplicates', op: 'duplicates', value: 0.9 },
      { key: 'uniqueness', op: 'uniqueness', value: 0.5 },
      { key: 'issues', op: 'issue', value: 'mislabel', mode: 'in', details: { label: ['cat'], suggested_label: ['dog'] } },
    ]);
    expect(parseVql('[]')).toEqual([]);
  });

  it('reads a map region (a lasso on the dataset map) and compiles it to a row predicate', () => {
    const polygon = [[-1, -0.5], [0.25, -0.5], [0.25, 1e-7], [-1, 0.75]];
    const filters = parseVql(JSON.stringify([{ map: { op: 'within', layout_id: LAYOUT, polygon } }]));
    expect(filters).toEqual([{ key: 'map', op: 'within', layout_id: LAYOUT, polygon }]);
    expect(splitVql(filters)).toEqual({ filters: [{ kind: 'mapRegion', layoutId: LAYOUT, polygon }], semantic: [] });
    const largest = Array.from({ length: MAX_POLYGON_VERTICES }, (_, i) => [Math.cos(i), Math.sin(i)]);
    expect(parseVql(JSON.stringify([{ map: { op: 'within', layout_id: LAYOUT, polygon: largest } }]))).toHaveLength(1);
    const tooMany = JSON.stringify([{ map: { op: 'within', layout_id: LAYOUT, polygon: [...largest, [0, 0]] } }]);
    expect(() => parseVql(tooMany)).toThrow('vql[0].map.polygon: polygon must have at most 1000 vertices');
  });

  it.each([
    ['{"text":1', 'vql: not valid JSON'],
    ['{"text":{"op":"fts","value":"x"}}', 'vql: must be a JSON array of filters'],
    ['[1]', 'vql[0]: each filter must be an object with one key'],
    ['[{}]', 'vql[0]: each filter must have exactly one key, got 0'],
    ['[{"colour":{"op":"is","value":"red"}}]', 'vql[0]: unknown key "colour" (expected one of text, labels, ground_truth, metadata, tags, issues, duplicates, uniqueness, map)'],
    ['[{"labels":{"op":"one_of","value":["a"]}},{"issues":{"op":"issue","value":"smudge"}}]', 'vql[1].issues.value: value must be one of duplicates, similar, outliers, blur, dark, bright, broken, mislabel, leakage'],
    ['[{"issues":{"op":"issue","value":"mislabel","details":{"colour":["red"]}}}]', 'vql[0].issues.details: details keys must be among label, suggested_label, split, duplicate_split'],
    ['[{"issues":{"op":"issue","value":"leakage","details":{"split":[]}}}]', 'vql[0].issues.details.split: details values must list at least one value'],
    ['[{"issues":{"op":"issue","value":"leakage","details":{"split":"test"}}}]', 'vql[0].issues.details.split:'],
    ['[{"text":{"op":"regex","value":"a.*"}}]', 'vql[0].text.op: op must be fts or semantic'],
    ['[{"text":{"op":"semantic","value":"cat","threshold":1.5}}]', 'vql[0].text.threshold: must be between 0 and 1'],
    ['[{"tags":{"op":"is","value":["nope"]}}]', 'vql[0].tags.value.0: tags must be UUIDs'],
    ['[{"uniqueness":{"op":"uniqueness","value":0.5,"extra":1}}]', 'vql[0].uniqueness: Unrecognized key: "extra"'],
    ['[{"__proto__":{"op":"is","value":"x"}}]', 'vql[0]: unknown key "__proto__"'],
    ['[{"constructor":{"op":"is","value":"x"}}]', 'vql[0]: unknown key "constructor"'],
    ['[{"toString":{"op":"is","value":"x"}}]', 'vql[0]: unknown key "toString"'],
    ['[{"text":{"op":"fts","value":"a\\u0000b"}}]', 'vql: text must not contain NUL characters'],
    ['[{"labels":{"op":"one_of","value":["\\u0000"]}}]', 'vql: text must not contain NUL characters'],
    [`[{"map":{"op":"inside","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0],[0,1]]}}]`, 'vql[0].map.op: op must be within'],
    ['[{"map":{"op":"within","layout_id":"current","polygon":[[0,0],[1,0],[0,1]]}}]', 'vql[0].map.layout_id: layout_id must be the UUID of the map layout (GET …/map)'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0]]}}]`, 'vql[0].map.polygon: polygon must have at least 3 vertices'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0],[0,1,2]]}}]`, 'vql[0].map.polygon.2: each vertex must be [x, y]'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0],[0,"1"]]}}]`, 'vql[0].map.polygon.2.1: each coordinate must be a finite number'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0],[0,1e999]]}}]`, 'vql[0].map.polygon.2.1: each coordinate must be a finite number'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":"((0,0),(1,0),(0,1))"}}]`, 'vql[0].map.polygon: polygon must be an array of [x, y] vertices'],
    [`[{"map":{"op":"within","layout_id":"${LAYOUT}","polygon":[[0,0],[1,0],[0,1]],"points":3}}]`, 'vql[0].map: Unrecognized key: "points"'],
  ])('refuses %s with a message pointing at the bad element', (raw, message) => {
    expect(() => parseVql(raw)).toThrow(VqlError);
    expect(() => parseVql(raw)).toThrow(message);
  });
});
