import fs from 'node:fs';
import path from 'node:path';
import { headingAnchors } from '../support/headingAnchors';

const root = path.join(__dirname, '..', '..');
const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))];

/** Every markdown link target of `text` that is not a web address or mail: `[text](target)`. */
function relativeLinks(text: string): string[] {
  const code = /```[\s\S]*?```/g;
  return [...text.replace(code, '').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/i.test(target));
}

/** The heading anchors of a markdown file of the repository. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set(headingAnchors([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1])));
}

describe('links in README.md and docs/*.md', () => {
  it.each(docs)('%s links only files that exist', (doc) => {
    const missing = relativeLinks(fs.readFileSync(path.join(root, doc), 'utf8'))
      .map((target) => target.split('#')[0])
      .filter((file) => file !== '' && !fs.existsSync(path.join(root, path.dirname(doc), decodeURI(file))));
    expect(missing).toEqual([]);
  });

  it.each(docs)('%s links only headings that exist (docs/decisions.md records included)', (doc) => {
    const missing = relativeLinks(fs.readFileSync(path.join(root, doc), 'utf8'))
      .filter((target) => target.includes('#'))
      .filter((target) => {
        const [file, anchor] = target.split('#');
        const into = path.normalize(file === '' ? doc : path.join(path.dirname(doc), decodeURI(file)));
        return into.endsWith('.md') && fs.existsSync(path.join(root, into)) && !anchorsOf(into).has(anchor);
      });
    expect(missing).toEqual([]);
  });
});
