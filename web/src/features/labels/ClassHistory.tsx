import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { labelQueries } from './api';

const ACTIONS: Record<string, string> = { set: 'Set', accept: 'Suggestion accepted', propagate: 'Propagated', undo: 'Undone' };

/** An item's class changes, newest first, in a disclosure read when it is opened. */
export function ClassHistory({ datasetId, mediaId }: { datasetId: string; mediaId: string }) {
  const [open, setOpen] = useState(false);
  const history = useQuery({ ...labelQueries.history(datasetId, mediaId), enabled: open });
  return (
    <details className="class-history" data-testid="class-history" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>History</summary>
      {history.isPending && open && <p className="muted">Loading…</p>}
      <ErrorMessage error={history.error} prefix="The history could not be read" />
      {history.data && history.data.length === 0 && <p className="muted">No change since the class was imported.</p>}
      {history.data && history.data.length > 0 && (
        <ol>
          {history.data.map((change) => (
            <li key={`${change.action_id}-${change.created_at}`} data-undone={change.undone}>
              {ACTIONS[change.action] ?? change.action}: {change.previous ?? 'none'} → {change.label ?? 'none'}
              {change.undone && ' (undone)'}{' '}
              <span className="muted">
                {change.created_by ?? 'someone'}, {new Date(change.created_at).toLocaleString()}
              </span>
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
