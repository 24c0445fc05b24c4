import fs from 'node:fs';
import path from 'node:path';

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(titles: string[]): string[] {
  const seen = new Map<string, number>();
  return titles.map((title) => {
    const slug = title.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const repeat = seen.get(slug) ?? 0;
    seen.set(slug, repeat + 1);
    return repeat ? `${slug}-${repeat}` : slug;
  });
}

describe('docs/decisions.md', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'decisions.md'), 'utf8');
  const [index, records] = text.split('\n## Records\n');

  it('is one heading per record, with no record left as a bold paragraph', () => {
    expect(records.split('\n').filter((line) => /^\*\*[^*]+\*\*/.test(line))).toEqual([]);
  });

  it('links every record once from its index', () => {
    const titles = [...records.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    const linked = [...index.matchAll(/^- \[.+\]\(#(.+)\)$/gm)].map((match) => match[1]);
    expect([...linked].sort()).toEqual(anchors(titles).sort());
  });
});
