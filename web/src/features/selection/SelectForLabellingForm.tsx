import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { TaskNotice } from '../tasks/TaskNotice';
import { SELECTION_STRATEGIES, startSelection, tagKeys, type SelectionStrategy } from './api';
import type { Selection } from './selection';

const STRATEGY_HINTS: Record<SelectionStrategy, string> = {
  typicality: 'typical items of every group (best for small budgets)',
  representative: 'items that stand for their neighbours (best for larger budgets)',
  diversity: 'items far from each other',
  uniqueness: 'the most unusual items',
  coverage: 'items far from those with a label',
};

/**
 * "Select N for labelling…": chooses N of what the filters match by a strategy, as a new tag (a SELECTION task
 * that leaves duplicate copies out), and follows the task. Picked images and clusters are not a pool: it says so.
 */
export function SelectForLabellingForm({ datasetId, selection }: { datasetId: string; selection: Selection }) {
  const [count, setCount] = useState(50);
  const [strategy, setStrategy] = useState<SelectionStrategy>('typicality');
  const [tag, setTag] = useState('to label');
  const [balance, setBalance] = useState(false);
  const start = useMutation({
    mutationFn: async () => ({ since: Date.now(), taskId: await startSelection(datasetId, { strategy, n: count, tag: tag.trim(), filter: selection.matching!.vql, seed: 1, balance }) }),
  });
  const reason = !selection.matching
    ? 'Selecting for labelling chooses from what the filters match: use “Select all matching” first.'
    : tag.trim() === ''
      ? 'Name the tag the chosen items get.'
      : !(Number.isInteger(count) && count >= 1)
        ? 'Choose at least 1 item.'
        : undefined;
  return (
    <details className="inline-form">
      <summary>Select N for labelling…</summary>
      <form
        className="inline-form"
        aria-label="Select for labelling"
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate();
        }}
      >
        <label>
          N <input type="number" min={1} step={1} value={count} aria-label="How many to select" onChange={(event) => setCount(Number(event.target.value))} />
        </label>
        <label>
          by{' '}
          <select value={strategy} aria-label="Strategy" onChange={(event) => setStrategy(event.target.value as SelectionStrategy)}>
            {SELECTION_STRATEGIES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">{STRATEGY_HINTS[strategy]}</span>
        <label>
          as tag <input aria-label="Selection tag" value={tag} maxLength={100} onChange={(event) => setTag(event.target.value)} />
        </label>
        <label>
          <input type="checkbox" checked={balance} onChange={(event) => setBalance(event.target.checked)} /> balanced over classes
        </label>
        <button type="submit" disabled={reason !== undefined || start.isPending}>
          Select for labelling
        </button>
        {reason && <span className="muted">{reason}</span>}
      </form>
      {start.data && (
        <TaskNotice
          key={start.data.taskId}
          followed={{ taskType: 'SELECTION', datasetId, since: start.data.since }}
          running="Selecting: the dataset is READ ONLY until the SELECTION task ends."
          completed={(task) => `${task.status_message ?? 'Selected'}. Filter Explore by the tag to see them.`}
          refresh={[tagKeys.all[0], 'dataset', 'explore']}
        />
      )}
      <ErrorMessage error={start.error} prefix="The selection could not start" />
    </details>
  );
}
