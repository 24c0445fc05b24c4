import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorMessage } from '../../components/ErrorMessage';
import { CLASS_CHANGE_KEYS } from '../labels/api';
import { FINAL_TASK_STATUSES as FINAL } from '../tasks/api';
import { fetchLabelTask, previewPropagation, propagateLabel, selectionKeys } from './api';
import { IDS_PER_LIST, selectionBody, type Selection } from './selection';

/**
 * Labels the selection and, unless turned off, its neighbours at least this similar (a LABEL_PROPAGATION task;
 * the class when the dataset has a label field): the task's progress is shown until it ends, then Explore shows them.
 */
export function LabelForm({ datasetId, selection, disabled }: { datasetId: string; selection: Selection; disabled: boolean }) {
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const [propagate, setPropagate] = useState(true);
  const [minSimilarity, setMinSimilarity] = useState(0.9);
  const [maxNeighbours, setMaxNeighbours] = useState(50);
  const body = () => ({ label: label.trim(), selection: selectionBody(selection), min_similarity: minSimilarity, max_neighbours: propagate ? maxNeighbours : 0 });
  const start = useMutation({
    mutationFn: () => propagateLabel(datasetId, body()),
  });
  // A dry run: how many neighbours the propagation would label, at this similarity and at others, before it runs.
  const preview = useMutation({
    mutationFn: async () => {
      const asked = body();
      const answer = await previewPropagation(datasetId, asked);
      return { ...answer, minSimilarity: asked.min_similarity };
    },
  });
  const taskId = start.data?.task_id;
  const task = useQuery({
    queryKey: selectionKeys.labelTask(taskId),
    enabled: Boolean(taskId),
    queryFn: async () => {
      const found = await fetchLabelTask(datasetId, taskId);
      if (found && FINAL.has(found.status)) await Promise.all([...CLASS_CHANGE_KEYS, 'dataset'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
      return found;
    },
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.status) ? false : 1000),
  });
  const noLabel = label.trim() === '';
  const tooMany = selection.mediaIds.length > IDS_PER_LIST;
  const running = start.isPending || (Boolean(taskId) && !(task.data && FINAL.has(task.data.status)));

  return (
    <form
      className="inline-form"
      aria-label="Label"
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate();
      }}
    >
      <input aria-label="Label" placeholder="label, e.g. cat" value={label} maxLength={100} onChange={(event) => setLabel(event.target.value)} />
      <label>
        <input type="checkbox" checked={propagate} onChange={(event) => setPropagate(event.target.checked)} /> and its similar neighbours
      </label>
      {propagate && (
        <>
          <label>
            similarity ≥{' '}
            <input type="number" min={0.5} max={1} step={0.01} value={minSimilarity} aria-label="Least similarity" title="Cosine similarity, 1 = the same image" onChange={(event) => setMinSimilarity(Number(event.target.value))} />
          </label>
          <label>
            up to{' '}
            <input type="number" min={1} max={1000} step={1} value={maxNeighbours} aria-label="Neighbours per image" onChange={(event) => setMaxNeighbours(Number(event.target.value))} /> each
          </label>
        </>
      )}
      {propagate && (
        <button type="button" disabled={disabled || noLabel || running || tooMany || preview.isPending} onClick={() => preview.mutate()}>
          Preview
        </button>
      )}
      <button type="submit" disabled={disabled || noLabel || running || tooMany}>
        Label
      </button>
      {noLabel && <span className="muted">Name a label to apply.</span>}
      {tooMany && <span className="muted">A label takes at most {IDS_PER_LIST.toLocaleString('en')} picked images; pick fewer, or select by filter or cluster.</span>}
      {propagate && preview.data && (
        <p role="status" data-testid="propagation-preview">
          At similarity ≥ {preview.data.minSimilarity.toFixed(2)}: {preview.data.neighbours} neighbours of the {preview.data.seeds} selected
          {preview.data.changes !== null && `, ${preview.data.changes} classes changed`}. At{' '}
          {preview.data.by_similarity.map((row, index) => (
            <span key={row.min_similarity}>
              {index > 0 && ', '}
              <button type="button" className="link-button" onClick={() => setMinSimilarity(row.min_similarity)}>
                {row.min_similarity.toFixed(2)}
              </button>
              : {row.neighbours}
            </span>
          ))}
          .
        </p>
      )}
      <ErrorMessage error={preview.error} prefix="The preview failed" />
      {taskId && (
        <p role="status" data-testid="label-task">
          {task.data ? `${task.data.status}: ${task.data.status_message ?? ''}` : 'Labelling started.'} <Link to={`/tasks?dataset_id=${datasetId}`}>Tasks</Link>
        </p>
      )}
      <ErrorMessage error={start.error} prefix="The labelling could not start" />
      <ErrorMessage error={task.data?.status === 'FAILED' ? new Error(task.data.error_message ?? 'failed') : null} prefix="The labelling failed" />
    </form>
  );
}
