import { Link } from 'react-router';
import type { Dataset } from '../../api/client';
import { TRANSIENT_DATASET_STATUSES } from '../../api/status';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { ProgressBar } from '../../components/ProgressBar';
import { RecordTable, StatusBadge, type Column } from '../../components/RecordTable';
import { useUrlState } from '../../urlState';
import { useDatasets } from './api';
import { CreateDataset } from './CreateDataset';

/** Datasets per page: the API lists them all (newest first), the page shows this many at a time. */
const DATASETS_PER_PAGE = 25;

const COLUMNS: Column<Dataset>[] = [
  { header: 'Name', cell: (dataset) => <Link to={`/datasets/${dataset.id}`}>{dataset.display_name}</Link> },
  { header: 'Status', cell: (dataset) => <StatusBadge status={dataset.status_new} testId="dataset-status" /> },
  { header: 'Images', cell: (dataset) => dataset.n_images },
  { header: 'Videos', cell: (dataset) => dataset.n_videos },
  {
    header: 'Progress',
    cell: (dataset) =>
      TRANSIENT_DATASET_STATUSES.has(dataset.status_new) ? <ProgressBar value={dataset.progress} label={`Progress of ${dataset.display_name}`} /> : `${dataset.progress} %`,
  },
  { header: 'Owner', cell: (dataset) => dataset.owned_by },
  { header: 'Created', cell: (dataset) => new Date(dataset.created_at).toLocaleString() },
  {
    header: '',
    className: 'actions',
    cell: (dataset) => (
      <>
        <Link to={`/datasets/${dataset.id}/explore`}>Explore</Link> <Link to={`/tasks?dataset_id=${dataset.id}`}>Tasks</Link>
      </>
    ),
  },
];

export function DatasetsPage() {
  const [params, change] = useUrlState();
  const datasets = useDatasets();
  const all = datasets.data ?? [];
  const pages = Math.max(1, Math.ceil(all.length / DATASETS_PER_PAGE));
  const page = Math.min(Math.max(0, Number(params.get('page')) || 0), pages - 1);
  const shown = all.slice(page * DATASETS_PER_PAGE, (page + 1) * DATASETS_PER_PAGE);

  return (
    <>
      <h1>Datasets</h1>
      <CreateDataset />
      <section aria-labelledby="list-title">
        <h2 id="list-title">All datasets</h2>
        {datasets.isPending && <p>Loading…</p>}
        <ErrorMessage error={datasets.error} prefix="The datasets could not be listed" />
        {datasets.data && (
          <RecordTable label="Datasets" columns={COLUMNS} rows={shown} rowKey={(dataset) => dataset.id} rowData={(dataset) => ({ 'data-dataset-id': dataset.id })} empty="No dataset yet: create one above." />
        )}
        {pages > 1 && (
          <Pager
            label="Dataset pages"
            page={page}
            hasNext={page + 1 < pages}
            summary={`Page ${page + 1} of ${pages} (${all.length} datasets)`}
            onPage={(next) => change({ page: String(next) })}
          />
        )}
      </section>
    </>
  );
}
