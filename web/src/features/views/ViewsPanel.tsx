import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { EntityType } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorMessage';
import { deleteView, renameView, saveView, setViewAlerting, viewKeys, viewQueries } from './api';
import { viewExploreUrl } from './viewLinks';

/** Saved views of a dataset: save the current Explore filters, open, rename or delete a view, toggle alerting, see each view's trend over batches. */
export function ViewsPanel({ datasetId, entityType, caption, vql }: { datasetId: string; entityType: EntityType; caption?: string; vql?: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const views = useQuery(viewQueries.list(datasetId));
  const refresh = () => queryClient.invalidateQueries({ queryKey: viewKeys.list(datasetId) });
  const save = useMutation({
    mutationFn: () => saveView(datasetId, name.trim(), { entityType, caption, vql }),
    onSuccess: () => setName(''),
    onSettled: refresh,
  });
  const alerting = useMutation({
    mutationFn: ({ viewId, enabled }: { viewId: string; enabled: boolean }) => setViewAlerting(datasetId, viewId, enabled),
    onSettled: refresh,
  });
  const [editing, setEditing] = useState<{ viewId: string; name: string } | undefined>();
  const [deleting, setDeleting] = useState<string | undefined>();
  const rename = useMutation({
    mutationFn: ({ viewId, name: newName }: { viewId: string; name: string }) => renameView(datasetId, viewId, newName.trim()),
    onSuccess: () => setEditing(undefined),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (viewId: string) => deleteView(datasetId, viewId),
    onSuccess: () => setDeleting(undefined),
    onSettled: refresh,
  });

  return (
    <section className="card" aria-labelledby="views-title">
      <h2 id="views-title">Saved views</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <input aria-label="View name" placeholder="Name these filters" value={name} onChange={(event) => setName(event.target.value)} required maxLength={255} />
        <button type="submit" disabled={save.isPending || name.trim() === ''}>
          Save view
        </button>
      </form>
      <ErrorMessage error={save.error ?? alerting.error ?? rename.error ?? remove.error ?? views.error} />
      <ul className="views">
        {views.data?.map((view) => (
          <li key={view.id} data-view-id={view.id}>
            {editing?.viewId === view.id ? (
              <form
                className="inline-form"
                onSubmit={(event) => {
                  event.preventDefault();
                  rename.mutate(editing);
                }}
              >
                <input aria-label={`New name of ${view.name}`} value={editing.name} maxLength={255} required onChange={(event) => setEditing({ viewId: view.id, name: event.target.value })} />
                <button type="submit" disabled={rename.isPending || editing.name.trim() === ''}>
                  Save name
                </button>
                <button type="button" onClick={() => setEditing(undefined)}>
                  Cancel
                </button>
              </form>
            ) : (
              <strong>{view.name}</strong>
            )}{' '}
            <span className="muted">{view.total_results} results in batches since it was saved</span>{' '}
            <Link to={viewExploreUrl(datasetId, view.filters)}>Open</Link>{' '}
            {editing?.viewId !== view.id && (
              <button type="button" className="link-button" onClick={() => setEditing({ viewId: view.id, name: view.name })}>
                Rename
              </button>
            )}
            {deleting === view.id ? (
              <span role="group" aria-label={`Confirm deleting ${view.name}`}>
                Delete “{view.name}” and its trend?{' '}
                <button type="button" disabled={remove.isPending} onClick={() => remove.mutate(view.id)}>
                  Yes, delete
                </button>{' '}
                <button type="button" onClick={() => setDeleting(undefined)}>
                  Cancel
                </button>
              </span>
            ) : (
              <button type="button" className="link-button" onClick={() => setDeleting(view.id)}>
                Delete
              </button>
            )}{' '}
            <label>
              <input
                type="checkbox"
                checked={view.alerting_enabled}
                disabled={alerting.isPending}
                onChange={(event) => alerting.mutate({ viewId: view.id, enabled: event.target.checked })}
              />{' '}
              Alert me
            </label>
            <Trend datasetId={datasetId} viewId={view.id} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Counts per batch as bars. */
function Trend({ datasetId, viewId }: { datasetId: string; viewId: string }) {
  const trend = useQuery(viewQueries.trend(datasetId, viewId));
  const points = trend.data ?? [];
  if (points.length === 0) return <div className="muted">No batch since this view was saved.</div>;
  const max = Math.max(1, ...points.map((point) => point.count));
  return (
    <svg className="trend" role="img" aria-label={`Trend: ${points.map((point) => point.count).join(', ')} per batch`} width={Math.max(60, points.length * 14)} height={40}>
      {points.map((point, index) => {
        const height = Math.max(2, (point.count / max) * 36);
        return (
          <rect key={point.batch_id} x={index * 14 + 2} y={38 - height} width={10} height={height}>
            <title>{`${new Date(point.timestamp).toLocaleString()}: ${point.count}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
