import fs from 'node:fs';
import path from 'node:path';
import { envSchema } from '../../lib/config';

/** README's configuration table: each row's variables (first cell) and its defaults (second cell). */
function configurationRows(): Array<{ names: string[]; defaults: string }> {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| Variable | Default | Meaning |'));
  const rows = table.split('\n').slice(2);
  return rows
    .slice(0, rows.findIndex((line) => !line.startsWith('|')))
    .map((line) => line.split('|'))
    .map(([, names, defaults]) => ({ names: [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]), defaults }));
}

describe("README's configuration table", () => {
  const rows = configurationRows();
  const documented = rows.flatMap((row) => row.names);

  it('documents every variable the configuration reads, once, and no other', () => {
    expect([...documented].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('states the default of every variable that has one', () => {
    const wrong = Object.entries(envSchema.shape).flatMap(([name, field]) => {
      const parsed = (field as { safeParse: (value: unknown) => { success: boolean; data?: unknown } }).safeParse(undefined);
      if (!parsed.success || parsed.data === undefined) return [];
      const row = rows.find((found) => found.names.includes(name))!;
      return row.defaults.includes(`\`${String(parsed.data)}\``) ? [] : [`${name}: ${String(parsed.data)} not in "${row.defaults.trim()}"`];
    });
    expect(wrong).toEqual([]);
  });
});
