import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const SUITE_FOLDERS = ['test/unit/security', 'test/integration/security'];

/** The titles of a test file's `it(...)` calls as written: quotes unescaped, a template's `${…}` kept. */
function testTitles(file: string): string[] {
  const source = fs.readFileSync(path.join(root, 'test', file), 'utf8');
  return [...source.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)].map(([, quote, title]) =>
    quote === '`' ? title : title.replace(/\\(.)/g, '$1'),
  );
}

/** Each `file › title` the tables of docs/security.md name, with the section it is in. */
function documentedTests(): Array<{ section: string; file: string; title: string }> {
  let section = '';
  const rows: Array<{ section: string; file: string; title: string }> = [];
  for (const line of fs.readFileSync(path.join(root, 'docs', 'security.md'), 'utf8').split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3);
    const row = /^\|.*\| `([^`]+)` › (.+) \|$/.exec(line);
    if (row) rows.push({ section, file: row[1], title: row[2].replaceAll('\\|', '|') });
  }
  return rows;
}

const suiteFiles = SUITE_FOLDERS.flatMap((folder) =>
  fs.readdirSync(path.join(root, folder)).filter((name) => name.endsWith('.test.ts')).map((name) => path.posix.join(folder.slice('test/'.length), name)),
);

it('names in docs/security.md only tests that exist', () => {
  const missing = documentedTests().filter(({ file, title }) => !fs.existsSync(path.join(root, 'test', file)) || !testTitles(file).includes(title));
  expect(missing).toEqual([]);
});

it('has a row in docs/security.md for every test of the security suite', () => {
  const documented = new Set(documentedTests().map(({ file, title }) => `${file} › ${title}`));
  const undocumented = suiteFiles.flatMap((file) => testTitles(file).map((title) => `${file} › ${title}`)).filter((test) => !documented.has(test));
  expect(suiteFiles.length).toBeGreaterThan(0);
  expect(undocumented).toEqual([]);
});
