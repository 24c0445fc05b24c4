import fs from 'node:fs';
import path from 'node:path';
import { headingAnchors } from '../support/headingAnchors';

describe('docs/decisions.md', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'decisions.md'), 'utf8');
  const [index, records] = text.split('\n## Records\n');

  it('is one heading per record, with no record left as a bold paragraph', () => {
    expect(records.split('\n').filter((line) => /^\*\*[^*]+\*\*/.test(line))).toEqual([]);
  });

  it('links every record once from its index', () => {
    const titles = [...records.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    const linked = [...index.matchAll(/^- \[.+\]\(#(.+)\)$/gm)].map((match) => match[1]);
    expect([...linked].sort()).toEqual(headingAnchors(titles).sort());
  });
});
