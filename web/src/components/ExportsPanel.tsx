import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Dataset, type Task } from '../api/client';
import { useExportFormats, type ExportFormatInfo } from '../api/exportFormats';
import type { paths } from '../api/schema';
import { ErrorMessage } from './ErrorMessage';
import { refusalOf } from '../api/offers';
import { ProgressBar } from './ProgressBar';

type ExportFormat = NonNullable<paths['/api/v1/dataset/{dataset_id}/export_context_async']['get']['parameters']['query']>['export_format'];

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
  const exports = useQuery({
    queryKey: ['tasks', 'exports', dataset.id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/tasks', { params: { query: { dataset_id: dataset.id, task_type: 'EXPORT', page_size: 10, sort_by: 'start_time', sort_order: 'desc' } } })),
  });
  const refused = refusalOf(dataset, 'export');
  const start = useMutation({
    mutationFn: async (exportFormat: ExportFormat) =>
      unwrap(
        await api.GET('/api/v1/dataset/{dataset_id}/export_context_async', {
          params: { path: { dataset_id: dataset.id }, query: { file_name: fileName.trim(), export_format: exportFormat, include_images: includeImages ? 'true' : 'false' } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['tasks'] }),
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
      {exports.data && exports.data.tasks.length > 0 && (
        <div className="table-scroll">
          <table className="table" aria-label="Exports">
            <thead>
              <tr>
                <th>Started</th>
                <th>By</th>
                <th>Contents</th>
                <th>Status</th>
                <th>Download</th>
              </tr>
            </thead>
            <tbody>
              {exports.data.tasks.map((task) => (
                <ExportRow key={task.task_id} datasetId={dataset.id} task={task} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type ExportStatus = paths['/api/v1/dataset/{dataset_id}/export_status']['get']['responses'][200]['content']['application/json'];

/** What an export holds: its file, format, whether the images are in it, and what was picked. */
function exportContents(status: ExportStatus, formats: ExportFormatInfo[] | undefined): string {
  const format = formats?.find((option) => option.name === status.export_format)?.title ?? status.export_format;
  const picked = status.selection
    ? `a selection of ${status.selection.n_media} media and ${status.selection.n_clusters} cluster${status.selection.n_clusters === 1 ? '' : 's'}`
    : 'the whole dataset';
  return `${status.file_name}: ${format}, ${status.include_images ? 'with the images' : 'metadata only, no images'}, ${picked}`;
}

function ExportRow({ datasetId, task }: { datasetId: string; task: Task }) {
  const formats = useExportFormats();
  const status = useQuery({
    queryKey: ['export', task.task_id],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/dataset/{dataset_id}/export_status', { params: { path: { dataset_id: datasetId }, query: { export_task_id: task.task_id } } })),
    refetchInterval: (query) => (query.state.data?.status === 'COMPLETED' || query.state.data?.status === 'FAILED' ? false : 1500),
    // Each answer signs a fresh link; an old page gets a new one when it is looked at again.
    staleTime: 60_000,
  });
  const data = status.data;
  return (
    <tr data-export-id={task.task_id}>
      <td>{new Date(task.start_time).toLocaleString()}</td>
      <td>{task.created_by}</td>
      <td data-testid="export-contents">{data ? exportContents(data, formats.data) : '…'}</td>
      <td>
        <span className={`status status-${data?.status ?? ''}`} data-testid="export-status">
          {data?.status ?? '…'}
        </span>{' '}
        {(data?.status === 'PENDING' || data?.status === 'RUNNING') && <ProgressBar value={data.progress_percentage} label="Export progress" />}
        {data?.error_message && <div className="error">{data.error_message}</div>}
        <ErrorMessage error={status.error} />
      </td>
      <td>{data?.download_uri ? <a href={data.download_uri}>Download ZIP</a> : '—'}</td>
    </tr>
  );
}
