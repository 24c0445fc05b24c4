import fs from 'node:fs';
import path from 'node:path';
import { LEAST_ROLE } from '../../lib/accessPolicy';
import { OPERATIONS, TASK_RULES, TRANSITIONS } from '../../lib/datasetStates';

const docs = path.join(__dirname, '..', '..', 'docs');

/** The body rows of the first markdown table after `heading` in `file`, as arrays of trimmed cells. */
function table(file: string, heading: string): string[][] {
  const text = fs.readFileSync(path.join(docs, file), 'utf8');
  const lines = text.slice(text.indexOf(heading)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start + 2, end).map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
}

const list = (cell: string) => (cell ? cell.split(',').map((value) => value.trim()) : []);

describe('docs/states.md and docs/access.md say what the modules do', () => {
  it('lists every operation with its statuses, claim and task', () => {
    const documented = table('states.md', '## Which operation');
    expect(documented.map(([operation, from, claims, task]) => ({ operation, from: list(from), claims, task }))).toEqual(
      Object.entries(OPERATIONS).map(([operation, rule]) => ({ operation, from: [...rule.from], claims: rule.claims ?? '', task: rule.task ?? '' })),
    );
  });

  it('lists every workflow transition', () => {
    const documented = table('states.md', '## Status changes');
    expect(documented.map(([event, from, to]) => ({ event, from: list(from), to }))).toEqual(
      Object.entries(TRANSITIONS).map(([event, transition]) => ({ event, from: [...transition.from], to: transition.to })),
    );
  });

  it('lists which task types can be aborted and retried', () => {
    const documented = table('states.md', '## Tasks');
    const yes = (cell: string) => cell === 'yes';
    expect(documented.map(([type, abort, retry]) => [type, yes(abort), yes(retry)])).toEqual(
      Object.entries(TASK_RULES).map(([type, rule]) => [type, rule.abortable, rule.retryable]),
    );
  });

  it('lists the least role of every action', () => {
    const documented = table('access.md', '# Who may do what');
    expect(Object.fromEntries(documented.map(([action, role]) => [action, role]))).toEqual(LEAST_ROLE);
  });
});
