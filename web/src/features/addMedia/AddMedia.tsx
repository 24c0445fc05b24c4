import { useState, type DragEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Dataset } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { uploadName } from '../../api/upload';
import { ErrorMessage } from '../../components/ErrorMessage';
import { FolderInput } from '../../components/FolderInput';
import { datasetKeys } from '../datasets/api';
import { exploreKeys } from '../explore/api';
import { taskKeys, type FollowedTask } from '../tasks/api';
import { TaskNotice } from '../tasks/TaskNotice';
import { addMedia, reindexDataset, type MediaSource } from './api';

type Kind = MediaSource['kind'];
const ARCHIVE_TYPES = '.zip,.tar,.tar.gz,.tgz';

/** Adds a batch to an indexed dataset from files, an archive or an S3 URI; a PARTIAL INDEX dataset can be reindexed. */
export function AddMedia({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('files');
  const [files, setFiles] = useState<File[]>([]);
  const [archive, setArchive] = useState<File | undefined>();
  const [uri, setUri] = useState('');
  const [autoReindex, setAutoReindex] = useState(false);
  const [labelsFromFolders, setLabelsFromFolders] = useState(false);
  const [progress, setProgress] = useState(0);
  // The task the last batch or reindex started: its notice lasts as long as it runs.
  const [followed, setFollowed] = useState<FollowedTask | undefined>();
  const follow = (taskType: FollowedTask['taskType']) => setFollowed({ taskType, datasetId: dataset.id, since: Date.now() });
  // File inputs cannot be cleared by state; a new key gives a fresh one after a sent batch.
  const [inputKey, setInputKey] = useState(0);
  const blocked = refusalOf(dataset, 'add_media');
  const reindexRefused = refusalOf(dataset, 'reindex');
  const refresh = () => Promise.all([datasetKeys.details, datasetKeys.list, taskKeys.all, exploreKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })));

  const source: MediaSource | undefined =
    kind === 'files' ? (files.length > 0 ? { kind, files } : undefined) : kind === 'archive' ? (archive ? { kind, archive } : undefined) : uri.trim() ? { kind, uri: uri.trim() } : undefined;

  // Uploads need a folder in their names; an archive's or S3 folder's sub-folders show only once the batch is collected.
  const foldersUsable = kind !== 'files' || files.some((file) => uploadName(file).includes('/'));
  const add = useMutation({
    mutationFn: (chosen: MediaSource) => addMedia(dataset.id, chosen, { autoReindex, labelsFromFolders: foldersUsable && labelsFromFolders }, setProgress),
    onMutate: () => {
      setFollowed(undefined);
      setProgress(0);
    },
    onSuccess: () => {
      follow('MEDIA_ADDITION');
      setFiles([]);
      setArchive(undefined);
      setUri('');
      setInputKey((key) => key + 1);
    },
    onSettled: refresh,
  });
  const reindex = useMutation({
    mutationFn: () => reindexDataset(dataset.id),
    onMutate: () => setFollowed(undefined),
    onSuccess: () => follow('REINDEX'),
    onSettled: refresh,
  });

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setKind('files');
    setFiles(Array.from(event.dataTransfer.files));
  }

  return (
    <section className="card" aria-labelledby="add-media-title">
      <h2 id="add-media-title">Add media</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (source) add.mutate(source);
        }}
        onDragOver={(event) => event.preventDefault()}
        onDrop={onDrop}
      >
        <fieldset className="inline-form" disabled={add.isPending}>
          <legend>Source</legend>
          {(['files', 'archive', 's3'] as const).map((option) => (
            <label key={option}>
              <input type="radio" name="source" value={option} checked={kind === option} onChange={() => setKind(option)} />{' '}
              {option === 'files' ? 'Files' : option === 'archive' ? 'Archive (.zip, .tar, .tar.gz)' : 'S3 URI'}
            </label>
          ))}
        </fieldset>
        <p>
          {kind === 'files' && (
            <>
              <input key={inputKey} type="file" multiple aria-label="Media files" onChange={(event) => setFiles(Array.from(event.target.files ?? []))} /> or a folder{' '}
              <FolderInput key={`folder-${inputKey}`} aria-label="Media folder" onChange={(event) => setFiles(Array.from(event.target.files ?? []))} />
            </>
          )}
          {kind === 'archive' && <input key={inputKey} type="file" accept={ARCHIVE_TYPES} aria-label="Archive" onChange={(event) => setArchive(event.target.files?.[0])} />}
          {kind === 's3' && (
            <input value={uri} onChange={(event) => setUri(event.target.value)} placeholder="s3://bucket/folder/ or s3://bucket/list.csv" aria-label="S3 URI" size={50} />
          )}{' '}
          <label>
            <input type="checkbox" checked={autoReindex} onChange={(event) => setAutoReindex(event.target.checked)} /> Reindex when done
          </label>{' '}
          <label>
            <input type="checkbox" checked={labelsFromFolders} onChange={(event) => setLabelsFromFolders(event.target.checked)} disabled={!foldersUsable} /> Use folders as
            labels
          </label>
          {!foldersUsable && <span className="muted"> (no file was picked from a folder)</span>}
        </p>
        {kind === 'files' && files.length > 0 && (
          <p className="muted">
            {files.length} file{files.length === 1 ? '' : 's'}: {files.map(uploadName).join(', ')}
          </p>
        )}
        <p>
          <button type="submit" disabled={Boolean(blocked) || !source || add.isPending} aria-describedby={blocked ? 'add-media-reason' : undefined}>
            Add to dataset
          </button>{' '}
          {add.isPending && kind !== 's3' && <progress aria-label="Upload of the batch" max={1} value={progress} />}{' '}
          <button type="button" disabled={Boolean(reindexRefused) || reindex.isPending} onClick={() => reindex.mutate()} title="Re-cluster every media; the dataset becomes READY" aria-describedby="reindex-reason">
            Reindex
          </button>
        </p>
        {blocked && (
          <p className="reason" id="add-media-reason">
            {blocked}
          </p>
        )}
        <p className={reindexRefused ? 'reason' : 'muted'} id="reindex-reason">
          {reindexRefused ?? 'Media added since the last indexing wait for a reindex to join the clusters and the map.'}
        </p>
      </form>
      {followed && (
        <TaskNotice
          key={followed.since}
          followed={followed}
          refresh={['dataset', 'datasets', 'explore', 'map']}
          running={
            followed.taskType === 'MEDIA_ADDITION' ? 'Batch accepted: the dataset is READ ONLY while the MEDIA_ADDITION task runs.' : 'Reindex started: the dataset becomes READY when it completes.'
          }
          completed={(task) => (task.task_type === 'MEDIA_ADDITION' ? `The batch was added: ${task.status_message}` : 'Reindexed: the dataset is READY.')}
        />
      )}
      <ErrorMessage error={add.error} prefix="The batch was refused" />
      <ErrorMessage error={reindex.error} prefix="Reindex refused" />
    </section>
  );
}
