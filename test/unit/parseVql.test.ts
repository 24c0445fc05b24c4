import { parseVql, VqlError } from '../../lib/vql/parseVql';

const tag = '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11';

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

  it.each([
    ['{"text":1', 'vql: not valid JSON'],
    ['{"text":{"op":"fts","value":"x"}}', 'vql: must be a JSON array of filters'],
    ['[1]', 'vql[0]: each filter must be an object with one key'],
    ['[{}]', 'vql[0]: each filter must have exactly one key, got 0'],
    ['[{"colour":{"op":"is","value":"red"}}]', 'vql[0]: unknown key "colour" (expected one of text, labels, tags, issues, duplicates, uniqueness)'],
    ['[{"labels":{"op":"one_of","value":["a"]}},{"issues":{"op":"issue","value":"smudge"}}]', 'vql[1].issues.value: value must be one of duplicates, outliers, blur, dark, bright, broken, mislabel, leakage'],
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
  ])('refuses %s with a message pointing at the bad element', (raw, message) => {
    expect(() => parseVql(raw)).toThrow(VqlError);
    expect(() => parseVql(raw)).toThrow(message);
  });
});
