import { Link, useParams } from 'react-router';
import { TRANSIENT_DATASET_STATUSES } from '../../api/status';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ProgressBar } from '../../components/ProgressBar';
import { StatusBadge } from '../../components/RecordTable';
import { useDataset } from './api';
import { DeleteDataset } from './DeleteDataset';
import { RenameDataset } from './RenameDataset';
import { AddMedia } from '../addMedia/AddMedia';
import { EnrichPanel } from '../enrichment/EnrichPanel';
import { ExportsPanel } from '../exports/ExportsPanel';
import { SnapshotsPanel } from '../snapshots/SnapshotsPanel';

export function DatasetPage() {
  const { datasetId = '' } = useParams();
  const dataset = useDataset(datasetId);
  const data = dataset.data;
  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › {data?.display_name ?? datasetId}
      </p>
      <h1>{data?.display_name ?? 'Dataset'}</h1>
      <ErrorMessage error={dataset.error} />
      {data && <RenameDataset dataset={data} />}
      {data && <DeleteDataset dataset={data} />}
      {data && (
        <section className="card">
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={data.status_new} />{' '}
              {TRANSIENT_DATASET_STATUSES.has(data.status_new) && <ProgressBar value={data.progress} label="Progress" />}
            </dd>
            <dt>Media</dt>
            <dd>
              {data.n_images} images, {data.n_videos} videos
            </dd>
            <dt>Owner</dt>
            <dd>{data.owned_by}</dd>
            <dt>Created</dt>
            <dd>{new Date(data.created_at).toLocaleString()}</dd>
          </dl>
          <p>
            <Link to={`/datasets/${datasetId}/explore`}>Explore</Link> · <Link to={`/datasets/${datasetId}/map`}>Map</Link> · <Link to={`/datasets/${datasetId}/duplicates`}>Duplicates</Link> · <Link to={`/datasets/${datasetId}/labels`}>Labels</Link> · <Link to={`/tasks?dataset_id=${datasetId}`}>Tasks</Link>
          </p>
        </section>
      )}
      {data && <AddMedia dataset={data} />}
      {data && <EnrichPanel dataset={data} />}
      {data && <SnapshotsPanel dataset={data} />}
      {data && <ExportsPanel dataset={data} />}
    </>
  );
}
