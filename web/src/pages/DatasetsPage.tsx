import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { TRANSIENT_DATASET_STATUSES } from '../api/status';
import { CreateDataset } from '../components/CreateDataset';
import { ErrorMessage } from '../components/ErrorMessage';
import { Pager } from '../components/Pager';
import { ProgressBar } from '../components/ProgressBar';
import { useUrlState } from '../urlState';

/** Datasets per page: the API lists them all (newest first), the page shows this many at a time. */
const DATASETS_PER_PAGE = 25;

export function DatasetsPage() {
  const [params, change] = useUrlState();
  const datasets = useQuery({
    queryKey: ['datasets'],
    queryFn: async () => unwrap(await api.GET('/api/v1/datasets')),
    // Poll while a dataset is on its way to READY or ERROR.
    refetchInterval: (query) => (query.state.data?.some((dataset) => TRANSIENT_DATASET_STATUSES.has(dataset.status_new)) ? 2000 : false),
  });
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
        {datasets.data?.length === 0 && <p>No dataset yet: create one above.</p>}
        {datasets.data && datasets.data.length > 0 && (
          <div className="table-scroll">
            <table className="table" aria-label="Datasets">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Status</th>
                  <th>Images</th>
                  <th>Videos</th>
                  <th>Progress</th>
                  <th>Owner</th>
                  <th>Created</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {shown.map((dataset) => (
                  <tr key={dataset.id} data-dataset-id={dataset.id}>
                    <td>
                      <Link to={`/datasets/${dataset.id}`}>{dataset.display_name}</Link>
                    </td>
                    <td>
                      <span className={`status status-${dataset.status_new.replace(' ', '-')}`} data-testid="dataset-status">
                        {dataset.status_new}
                      </span>
                    </td>
                    <td>{dataset.n_images}</td>
                    <td>{dataset.n_videos}</td>
                    <td>{TRANSIENT_DATASET_STATUSES.has(dataset.status_new) ? <ProgressBar value={dataset.progress} label={`Progress of ${dataset.display_name}`} /> : `${dataset.progress} %`}</td>
                    <td>{dataset.owned_by}</td>
                    <td>{new Date(dataset.created_at).toLocaleString()}</td>
                    <td className="actions">
                      <Link to={`/datasets/${dataset.id}/explore`}>Explore</Link> <Link to={`/tasks?dataset_id=${dataset.id}`}>Tasks</Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
