import fs from 'node:fs';
import path from 'node:path';
import { headingAnchors } from '../support/headingAnchors';

const root = path.join(__dirname, '..', '..');

describe('docs/decisions.md', () => {
  const text = fs.readFileSync(path.join(root, 'docs', 'decisions.md'), 'utf8');
  const [index, records] = text.split('\n## Records\n');

  it('is one heading per record, with no record left as a bold paragraph', () => {
    expect(records.split('\n').filter((line) => /^\*\*[^*]+\*\*/.test(line))).toEqual([]);
  });

  it('links every record once from its index', () => {
    const titles = [...records.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    const linked = [...index.matchAll(/^- \[.+\]\(#(.+)\)$/gm)].map((match) => match[1]);
    expect([...linked].sort()).toEqual(headingAnchors(titles).sort());
  });

  it('names only files and folders that exist (a moved file: update the Where: line of its records)', () => {
    const named = [...text.matchAll(/`((?:api|services|activities|workflows|lib|db|workers|web|test|scripts|clients|docs|bench)\/[\w./-]*)`/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((file) => !fs.existsSync(path.join(root, file)))).toEqual([]);
  });
});
