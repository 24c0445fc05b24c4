import fs from 'node:fs';
import path from 'node:path';
import { headingAnchors } from '../support/headingAnchors';

const root = path.join(__dirname, '..', '..');
const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))];
const decisions = path.join('docs', 'decisions.md');

/** Every markdown link target of `text` that is not a web address or mail: `[text](target)`. */
function relativeLinks(text: string): string[] {
  const code = /```[\s\S]*?```/g;
  return [...text.replace(code, '').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links in README.md and docs/*.md', () => {
  const decisionAnchors = new Set(headingAnchors([...fs.readFileSync(path.join(root, decisions), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1])));

  it.each(docs)('%s links only files that exist', (doc) => {
    const missing = relativeLinks(fs.readFileSync(path.join(root, doc), 'utf8'))
      .map((target) => target.split('#')[0])
      .filter((file) => file !== '' && !fs.existsSync(path.join(root, path.dirname(doc), decodeURI(file))));
    expect(missing).toEqual([]);
  });

  it.each(docs)('%s links only anchors of docs/decisions.md that exist', (doc) => {
    const missing = relativeLinks(fs.readFileSync(path.join(root, doc), 'utf8'))
      .filter((target) => target.includes('#'))
      .filter((target) => {
        const [file, anchor] = target.split('#');
        const into = file === '' ? doc : path.join(path.dirname(doc), file);
        return path.normalize(into) === decisions && !decisionAnchors.has(anchor);
      });
    expect(missing).toEqual([]);
  });
});
