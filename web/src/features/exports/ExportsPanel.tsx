import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Dataset, Task } from '../../api/client';
import { refusalOf } from '../../api/offers';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ProgressBar } from '../../components/ProgressBar';
import { RecordTable, StatusBadge, type Column } from '../../components/RecordTable';
import { taskKeys } from '../tasks/api';
import { exportDataset, exportQueries, useExportFormats, useExportStatus, type ExportFormat, type ExportFormatInfo, type ExportStatus } from './api';

/** Starts an export of the whole dataset and lists its EXPORT tasks, each with its status and, once done, its download. */
export function ExportsPanel({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const [fileName, setFileName] = useState(dataset.display_name);
  const formats = useExportFormats();
  const [picked, setPicked] = useState<ExportFormat>();
  // The API's first format until one is picked.
  const format = picked ?? (formats.data?.[0]?.name as ExportFormat | undefined);
  const chosen = formats.data?.find((option) => option.name === format);
  const [includeImages, setIncludeImages] = useState(false);
  const alwaysImages = chosen?.always_includes_images === true;
  const exports = useQuery(exportQueries.list(dataset.id));
  const refused = refusalOf(dataset, 'export');
  const start = useMutation({
    mutationFn: (exportFormat: ExportFormat) => exportDataset(dataset.id, fileName.trim(), exportFormat, includeImages),
    onSettled: () => queryClient.invalidateQueries({ queryKey: taskKeys.all }),
  });

  return (
    <section className="card" aria-labelledby="exports-title">
      <h2 id="exports-title">Exports</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (format) start.mutate(format);
        }}
      >
        <input aria-label="Export file name" value={fileName} onChange={(event) => setFileName(event.target.value)} required maxLength={200} />
        <select aria-label="Export format" aria-describedby="export-format-description" value={format ?? ''} onChange={(event) => setPicked(event.target.value as ExportFormat)}>
          {formats.data?.map((option) => (
            <option key={option.name} value={option.name}>
              {option.title}
            </option>
          ))}
        </select>
        <label>
          <input
            type="checkbox"
            checked={includeImages || alwaysImages}
            disabled={alwaysImages}
            onChange={(event) => setIncludeImages(event.target.checked)}
          />{' '}
          with the images
        </label>
        <button type="submit" disabled={Boolean(refused) || !format || start.isPending || fileName.trim() === ''} aria-describedby="export-reason">
          Export
        </button>
        {chosen && (
          <span className="reason" id="export-format-description">
            {chosen.description}
          </span>
        )}
        {(refused || fileName.trim() === '') && (
          <span className="reason" id="export-reason">
            {refused ?? 'Name the file to export.'}
          </span>
        )}
      </form>
      <ErrorMessage error={formats.error} prefix="The export formats could not be listed" />
      <ErrorMessage error={start.error} prefix="The export could not start" />
      <ErrorMessage error={exports.error} prefix="The exports could not be listed" />
      {exports.data && <RecordTable label="Exports" columns={columns(dataset.id)} rows={exports.data.tasks} rowKey={(task) => task.task_id} rowData={(task) => ({ 'data-export-id': task.task_id })} />}
    </section>
  );
}

/** What an export holds: its file, format, whether the images are in it, and what was picked. */
function exportContents(status: ExportStatus, formats: ExportFormatInfo[] | undefined): string {
  const format = formats?.find((option) => option.name === status.export_format)?.title ?? status.export_format;
  const picked = status.selection
    ? `a selection of ${status.selection.n_media} media and ${status.selection.n_clusters} cluster${status.selection.n_clusters === 1 ? '' : 's'}`
    : 'the whole dataset';
  return `${status.file_name}: ${format}, ${status.include_images ? 'with the images' : 'metadata only, no images'}, ${picked}`;
}

/** An export's columns: what the task says, then what its status says (one query per export, shared by its cells). */
const columns = (datasetId: string): Column<Task>[] => [
  { header: 'Started', cell: (task) => new Date(task.start_time).toLocaleString() },
  { header: 'By', cell: (task) => task.created_by },
  { header: 'Contents', testId: 'export-contents', cell: (task) => <ExportContents datasetId={datasetId} taskId={task.task_id} /> },
  { header: 'Status', cell: (task) => <ExportState datasetId={datasetId} taskId={task.task_id} /> },
  { header: 'Download', cell: (task) => <ExportDownload datasetId={datasetId} taskId={task.task_id} /> },
];

function ExportContents({ datasetId, taskId }: { datasetId: string; taskId: string }) {
  const formats = useExportFormats();
  const data = useExportStatus(datasetId, taskId).data;
  return data ? exportContents(data, formats.data) : '…';
}

function ExportState({ datasetId, taskId }: { datasetId: string; taskId: string }) {
  const status = useExportStatus(datasetId, taskId);
  const data = status.data;
  return (
    <>
      <StatusBadge status={data?.status ?? ''} testId="export-status">
        {data?.status ?? '…'}
      </StatusBadge>{' '}
      {(data?.status === 'PENDING' || data?.status === 'RUNNING') && <ProgressBar value={data.progress_percentage} label="Export progress" />}
      {data?.error_message && <div className="error">{data.error_message}</div>}
      <ErrorMessage error={status.error} />
    </>
  );
}

function ExportDownload({ datasetId, taskId }: { datasetId: string; taskId: string }) {
  const data = useExportStatus(datasetId, taskId).data;
  return data?.download_uri ? <a href={data.download_uri}>Download ZIP</a> : '—';
}
