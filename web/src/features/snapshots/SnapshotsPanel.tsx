import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Dataset, Snapshot } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { RecordTable, type Column } from '../../components/RecordTable';
import { datasetKeys } from '../datasets/api';
import { taskKeys, type FollowedTask } from '../tasks/api';
import { TaskNotice } from '../tasks/TaskNotice';
import { cloneSnapshot, createSnapshot, restoreSnapshot, snapshotKeys, snapshotQueries } from './api';

/** The dataset's snapshots, newest first: create one, restore one, clone one into a new dataset. */
export function SnapshotsPanel({ dataset }: { dataset: Dataset }) {
  const datasetId = dataset.id;
  const [createRefused, restoreRefused, cloneRefused] = [refusalOf(dataset, 'snapshot'), refusalOf(dataset, 'restore'), refusalOf(dataset, 'clone')];
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [notice, setNotice] = useState('');
  // The last clone started: its notice lasts as long as its task, then links to the new dataset.
  const [cloning, setCloning] = useState<{ snapshot: Snapshot; followed: FollowedTask } | undefined>();
  const [confirmingRestore, setConfirmingRestore] = useState<Snapshot | undefined>();
  // A restore's notice lasts while the restore runs.
  const [restoring, setRestoring] = useState(false);
  const snapshots = useQuery({
    ...snapshotQueries.list(datasetId),
    refetchInterval: (query) => (query.state.data?.some((snapshot) => snapshot.is_restoring) ? 2000 : false),
  });
  const refresh = () =>
    Promise.all([snapshotKeys.all, datasetKeys.details, datasetKeys.list, taskKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })));

  const create = useMutation({
    mutationFn: () => createSnapshot(datasetId, name.trim(), description.trim() || undefined),
    onSuccess: (snapshot) => {
      setName('');
      setDescription('');
      setNotice(`Snapshot “${snapshot.snapshot_name}” created.`);
    },
    onSettled: refresh,
  });
  const restore = useMutation({
    mutationFn: (snapshot: Snapshot) => restoreSnapshot(datasetId, snapshot.snapshot_id),
    onSuccess: async (_answer, snapshot) => {
      await refresh();
      setNotice(`Restoring “${snapshot.snapshot_name}”: follow the SNAPSHOT_RESTORE task on the Tasks page.`);
      setRestoring(true);
    },
    onError: refresh,
  });
  const restoreRunning = snapshots.data?.some((snapshot) => snapshot.is_restoring) ?? false;
  useEffect(() => {
    if (restoring && !restoreRunning) {
      setRestoring(false);
      setNotice('');
    }
  }, [restoring, restoreRunning]);
  const clone = useMutation({
    mutationFn: (snapshot: Snapshot) => cloneSnapshot(datasetId, snapshot.snapshot_id),
    onMutate: () => setCloning(undefined),
    onSuccess: (_answer, snapshot) => setCloning({ snapshot, followed: { taskType: 'SNAPSHOT_CLONE', since: Date.now() } }),
    onSettled: refresh,
  });
  const busy = create.isPending || restore.isPending || clone.isPending;
  const columns: Column<Snapshot>[] = [
    {
      header: 'Name',
      cell: (snapshot) => (
        <>
          {snapshot.snapshot_name} {snapshot.is_current && <span className="badge ok">current</span>} {snapshot.is_restoring && <span className="badge">restoring…</span>}
          {snapshot.description && <div className="muted">{snapshot.description}</div>}
        </>
      ),
    },
    { header: 'Reason', cell: (snapshot) => snapshot.reason },
    { header: 'Media', cell: (snapshot) => `${snapshot.n_images} images, ${snapshot.n_videos} videos` },
    { header: 'Created', cell: (snapshot) => new Date(snapshot.created_at).toLocaleString() },
    { header: 'By', cell: (snapshot) => snapshot.created_by ?? '—' },
    {
      header: 'Actions',
      className: 'actions',
      cell: (snapshot) => (
        <>
          <button
            type="button"
            disabled={Boolean(restoreRefused) || busy || snapshot.is_restoring}
            title={snapshot.is_restoring ? 'Already restoring' : 'Make the dataset this snapshot again'}
            onClick={() => setConfirmingRestore(snapshot)}
          >
            Restore
          </button>
          <button
            type="button"
            disabled={Boolean(cloneRefused) || busy}
            title="A new dataset from this snapshot"
            onClick={() => {
              setNotice('');
              clone.mutate(snapshot);
            }}
          >
            Clone
          </button>
          {snapshot.is_restoring && <span className="reason">Restore: already restoring</span>}
          {!snapshot.is_restoring && restoreRefused && <span className="reason">Restore: {restoreRefused}</span>}
          {cloneRefused && <span className="reason">Clone: {cloneRefused}</span>}
        </>
      ),
    },
  ];

  return (
    <section className="card" aria-labelledby="snapshots-title">
      <h2 id="snapshots-title">Snapshots</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setNotice('');
          create.mutate();
        }}
      >
        <input value={name} onChange={(event) => setName(event.target.value)} placeholder="Snapshot name" aria-label="Snapshot name" required maxLength={255} />
        <input value={description} onChange={(event) => setDescription(event.target.value)} placeholder="Description (optional)" aria-label="Snapshot description" maxLength={2000} />
        <button type="submit" disabled={Boolean(createRefused) || busy || name.trim() === ''} aria-describedby="snapshot-create-reason">
          Create snapshot
        </button>
        {(createRefused || name.trim() === '') && (
          <span className="reason" id="snapshot-create-reason">
            {createRefused ?? 'Name the snapshot to create it.'}
          </span>
        )}
      </form>
      {notice && <p role="status">{notice}</p>}
      {cloning && (
        <TaskNotice
          key={cloning.followed.since}
          followed={cloning.followed}
          refresh={['datasets']}
          running={`Cloning “${cloning.snapshot.snapshot_name}” into a new dataset: the SNAPSHOT_CLONE task runs.`}
          completed={(task) => (
            <>
              Cloned “{cloning.snapshot.snapshot_name}” into <Link to={`/datasets/${task.dataset_id}`}>{task.dataset_name}</Link>.
            </>
          )}
        />
      )}
      <ErrorMessage error={create.error} prefix="The snapshot could not be created" />
      <ErrorMessage error={restore.error} prefix="Restore refused" />
      <ErrorMessage error={clone.error} prefix="Clone refused" />
      <ErrorMessage error={snapshots.error} prefix="The snapshots could not be listed" />
      {snapshots.data && (
        <RecordTable label="Snapshots" columns={columns} rows={snapshots.data} rowKey={(snapshot) => snapshot.snapshot_id} rowData={(snapshot) => ({ 'data-snapshot-id': snapshot.snapshot_id })} empty="No snapshot yet." />
      )}
      {confirmingRestore && (
        <ConfirmDialog
          title={`Restore “${confirmingRestore.snapshot_name}”?`}
          confirmLabel="Restore"
          onCancel={() => setConfirmingRestore(undefined)}
          onConfirm={() => {
            setNotice('');
            restore.mutate(confirmingRestore);
            setConfirmingRestore(undefined);
          }}
        >
          <p>
            <strong>Restore replaces all current data (media, metadata, enrichment, clustering, tags, labels) and cannot be undone.</strong> Duplicate decisions go back to the snapshot's too.
          </p>
          <p>
            Saved views go back to the snapshot's: views saved since it was taken are deleted with their trends, views deleted since come back (monitored from now on), and names and alerting return to the snapshot's. Take a snapshot first to keep the present state.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
