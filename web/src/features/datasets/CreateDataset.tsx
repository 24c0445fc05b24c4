import { useRef, useState, type DragEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { isAcceptedFile, ACCEPTED_EXTENSIONS } from '../../api/status';
import { uploadName } from '../../api/upload';
import { ErrorMessage } from '../../components/ErrorMessage';
import { FolderInput } from '../../components/FolderInput';
import { datasetKeys, newDataset, openUpload, processFiles, uploadBatch } from './api';

/** Files per upload request: small enough for steady progress, far under MAX_FILES_PER_REQUEST. */
const BATCH_SIZE = 50;

type FileState = 'waiting' | 'uploading' | 'uploaded' | 'refused';
interface PickedFile {
  file: File;
  state: FileState;
  progress: number;
  reason?: string;
}

type Phase =
  | { kind: 'picking' }
  | { kind: 'running'; step: string }
  | { kind: 'done'; taskId?: string; message: string; labelsOf?: string }
  | { kind: 'failed'; error: unknown };

/** Statuses on which the API refuses a batch for something in it (a file type, a size, a malformed part). */
const REFUSALS = new Set([400, 413, 422]);

/** A labels file's format by its name: COCO for .json, else a CSV. */
function labelsFileFormat(file: File): 'coco' | 'csv' {
  return file.name.toLowerCase().endsWith('.json') ? 'coco' : 'csv';
}

/** Drop or pick images and videos, name the dataset, then the four ingestion steps with per-file progress. */
export function CreateDataset() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [phase, setPhase] = useState<Phase>({ kind: 'picking' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement | null>(null);
  const [labelsFromFolders, setLabelsFromFolders] = useState(false);
  const [labelsFile, setLabelsFile] = useState<File | null>(null);
  const busy = phase.kind === 'running';
  const fromFolders = files.some(({ file, state }) => state === 'waiting' && uploadName(file).includes('/'));

  function addFiles(list: FileList | null) {
    if (!list || busy) return;
    const picked = Array.from(list).map<PickedFile>((file) =>
      isAcceptedFile(file.name)
        ? { file, state: 'waiting', progress: 0 }
        : { file, state: 'refused', progress: 0, reason: `not uploaded: only ${ACCEPTED_EXTENSIONS.join(' ')} files are accepted` },
    );
    setFiles((current) => (phase.kind === 'done' ? picked : [...current, ...picked]));
    if (phase.kind !== 'picking') setPhase({ kind: 'picking' });
  }

  function update(indexes: number[], change: Partial<PickedFile> | ((file: PickedFile, position: number) => Partial<PickedFile>)) {
    setFiles((current) =>
      current.map((file, index) => {
        const position = indexes.indexOf(index);
        if (position < 0) return file;
        return { ...file, ...(typeof change === 'function' ? change(file, position) : change) };
      }),
    );
  }

  /** Uploads one batch; a refusal naming files marks those and sends the rest again, any other marks the batch. */
  async function sendBatch(datasetId: string, transactionId: number, batch: number[]): Promise<number> {
    let pending = batch;
    while (pending.length > 0) {
      const sending = pending;
      update(sending, { state: 'uploading', progress: 0 });
      try {
        await uploadBatch(datasetId, transactionId, sending.map((index) => files[index].file), (fractions) =>
          update(sending, (_file, position) => ({ progress: fractions[position] })),
        );
        update(sending, { state: 'uploaded', progress: 1 });
        return sending.length;
      } catch (error) {
        // The API may refuse a file mid-body and close the connection, which the browser reports without an answer:
        // each file of the batch alone then tells which one it was.
        if (error instanceof ApiError && error.status === 0 && sending.length > 1) {
          let sent = 0;
          for (const index of sending) sent += await sendBatch(datasetId, transactionId, [index]);
          return sent;
        }
        if (error instanceof ApiError && error.status === 0) {
          update(sending, { state: 'refused', progress: 0, reason: 'the API closed the connection before answering (a file over its size limit is refused this way)' });
          return 0;
        }
        if (!(error instanceof ApiError) || !REFUSALS.has(error.status)) throw error;
        const named = sending.filter((index) => error.message.includes(files[index].file.name));
        const refused = named.length > 0 && named.length < sending.length ? named : sending;
        update(refused, { state: 'refused', progress: 0, reason: error.message });
        update(sending.filter((index) => !refused.includes(index)), { state: 'waiting', progress: 0 });
        pending = sending.filter((index) => !refused.includes(index));
      }
    }
    return 0;
  }

  async function create() {
    const toSend = files.flatMap((file, index) => (file.state === 'waiting' ? [index] : []));
    try {
      setPhase({ kind: 'running', step: 'Creating the dataset…' });
      const datasetId = await newDataset(name.trim());
      await queryClient.invalidateQueries({ queryKey: datasetKeys.list });
      const transactionId = await openUpload(datasetId);
      let uploaded = 0;
      for (let start = 0; start < toSend.length; start += BATCH_SIZE) {
        setPhase({ kind: 'running', step: `Uploading ${Math.min(start + BATCH_SIZE, toSend.length)} of ${toSend.length} files…` });
        uploaded += await sendBatch(datasetId, transactionId, toSend.slice(start, start + BATCH_SIZE));
      }
      if (uploaded === 0) {
        setPhase({ kind: 'done', message: 'No file was accepted, so nothing was indexed; the dataset stays UPLOADING.' });
        return;
      }
      setPhase({ kind: 'running', step: 'Starting the indexing…' });
      const labelsFrom = labelsFile ? labelsFileFormat(labelsFile) : labelsFromFolders && fromFolders ? 'folder' : undefined;
      const labelled = labelsFrom !== undefined;
      const taskId = await processFiles(datasetId, transactionId, labelsFrom, labelsFile);
      const how = labelsFile ? `, labelled from ${labelsFile.name}` : labelled ? ', with each folder as its files\' label' : '';
      const message = `${uploaded} file${uploaded === 1 ? '' : 's'} uploaded; indexing started${how}.`;
      setPhase({ kind: 'done', taskId, message, labelsOf: labelled ? datasetId : undefined });
    } catch (error) {
      setPhase({ kind: 'failed', error });
    } finally {
      await queryClient.invalidateQueries({ queryKey: datasetKeys.list });
    }
  }

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    addFiles(event.dataTransfer.files);
  }

  const waiting = files.filter((file) => file.state === 'waiting').length;
  return (
    <section className="card" aria-labelledby="create-title">
      <h2 id="create-title">New dataset</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label>
          Name{' '}
          <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={255} disabled={busy} placeholder="e.g. pets" />
        </label>
        <div
          className={`dropzone${dragging ? ' dragging' : ''}`}
          data-testid="dropzone"
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>Drop images and videos here, or</p>
          <button type="button" onClick={() => input.current?.click()} disabled={busy}>
            Choose files…
          </button>
          <input
            ref={input}
            type="file"
            multiple
            hidden
            aria-label="Files"
            accept={ACCEPTED_EXTENSIONS.join(',')}
            onChange={(event) => {
              addFiles(event.target.files);
              event.target.value = '';
            }}
          />{' '}
          <button type="button" onClick={() => folderInput.current?.click()} disabled={busy}>
            Choose a folder…
          </button>
          <FolderInput
            inputRef={folderInput}
            hidden
            aria-label="Folder"
            onChange={(event) => {
              addFiles(event.target.files);
              event.target.value = '';
            }}
          />
        </div>
        <p>
          <label>
            <input
              type="checkbox"
              checked={labelsFromFolders && !labelsFile}
              onChange={(event) => setLabelsFromFolders(event.target.checked)}
              disabled={busy || !fromFolders || labelsFile !== null}
            />{' '}
            Use folders as labels
          </label>
          {labelsFile ? (
            <span className="muted"> (the labels file gives the labels)</span>
          ) : (
            !fromFolders && <span className="muted"> (no file was picked from a folder: choose one with a sub-folder per class, such as cats/ and dogs/)</span>
          )}
        </p>
        <p>
          <label>
            Labels file (CSV of file,label[,split] or COCO JSON){' '}
            <input type="file" accept=".csv,.json" disabled={busy} onChange={(event) => setLabelsFile(event.target.files?.[0] ?? null)} />
          </label>
          {labelsFile && (
            <button type="button" onClick={() => setLabelsFile(null)} disabled={busy}>
              No labels file
            </button>
          )}
        </p>
        {files.length > 0 && (
          // A long list scrolls: focusable, so the keyboard can scroll it too.
          <ul className="files" aria-label="Files to upload" tabIndex={0}>
            {files.map(({ file, state, progress, reason }, index) => (
              <li key={`${file.name}-${index}`} className={`file ${state}`} data-state={state}>
                <span className="file-name">{uploadName(file)}</span>
                <span className="file-size">{formatBytes(file.size)}</span>
                {state === 'refused' ? (
                  <span className="refusal" role="note">
                    refused: {reason}
                  </span>
                ) : (
                  <progress aria-label={`Upload of ${file.name}`} max={1} value={progress} />
                )}
              </li>
            ))}
          </ul>
        )}
        <p>
          <button type="submit" disabled={busy || waiting === 0 || name.trim() === ''}>
            Create dataset with {waiting} file{waiting === 1 ? '' : 's'}
          </button>{' '}
          {files.length > 0 && !busy && (
            <button type="button" onClick={() => { setFiles([]); setPhase({ kind: 'picking' }); }}>
              Clear
            </button>
          )}
        </p>
      </form>
      {phase.kind === 'running' && <p aria-live="polite">{phase.step}</p>}
      {phase.kind === 'done' && (
        <p role="status">
          {phase.message}
          {phase.taskId ? ` Task ${phase.taskId}.` : ''}
          {phase.labelsOf && (
            <>
              {' '}
              <Link to={`/datasets/${phase.labelsOf}/labels`}>Label quality report</Link> (once indexing ends).
            </>
          )}
        </p>
      )}
      {phase.kind === 'failed' && <ErrorMessage error={phase.error} prefix="The dataset could not be created" />}
    </section>
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
