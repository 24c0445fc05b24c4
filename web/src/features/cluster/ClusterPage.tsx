import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { ShortcutsHelp, useShortcutsHelp } from '../../components/ShortcutsHelp';
import { focusThumb } from '../../focusThumb';
import { useUrlState } from '../../urlState';
import { MediaViewer } from '../media/MediaViewer';
import { clusterQueries } from './api';

const PAGE_SIZE = 100;

/** Every member of one cluster, a page at a time: Explore shows a cluster's first previews only. */
export function ClusterPage() {
  const { datasetId = '', clusterId = '' } = useParams();
  const [params, change] = useUrlState();
  const page = Math.max(0, Number(params.get('page')) || 0);
  const members = useQuery({
    ...clusterQueries.members(datasetId, clusterId, page, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const [viewing, setViewing] = useState<number | undefined>();
  const [helpOpen, setHelpOpen] = useShortcutsHelp();
  const media = members.data?.media ?? [];
  const total = members.data?.n_media ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>Dataset</Link> › <Link to={`/datasets/${datasetId}/explore`}>Explore</Link> › Cluster
      </p>
      <h1>
        Cluster of {total} image{total === 1 ? '' : 's'}
        {members.data && <span className="muted"> · threshold {members.data.similarity_threshold}</span>}
      </h1>
      <ErrorMessage error={members.error} prefix="The cluster could not be loaded" />
      {members.isPending && <p>Loading…</p>}
      <ul className="cluster-media" aria-label="Cluster members">
        {media.map((item, index) => (
          <li key={item.media_id}>
            <button type="button" className="thumb" data-media-id={item.media_id} title={`${item.file_name}: open full screen`} onClick={() => setViewing(index)}>
              <img src={item.media_thumb_uri} alt={item.caption ?? item.file_name} loading="lazy" width={128} height={128} />
            </button>
            <span className="muted">{item.file_name}</span>
          </li>
        ))}
      </ul>
      <p className="muted">
        Click an image (or press Enter on it) to open it full screen; <button type="button" className="link-button" onClick={() => setHelpOpen(true)}>keyboard shortcuts (?)</button>.
      </p>
      {viewing !== undefined && media[viewing] && (
        <MediaViewer
          datasetId={datasetId}
          items={media}
          index={viewing}
          onIndex={setViewing}
          onClose={() => {
            focusThumb(media[viewing].media_id);
            setViewing(undefined);
          }}
        />
      )}
      {helpOpen && <ShortcutsHelp onClose={() => setHelpOpen(false)} />}
      <Pager label="Cluster pages" page={page} hasNext={page + 1 < pages} summary={`Page ${page + 1} of ${pages}`} onPage={(next) => change({ page: String(next) })} />
    </>
  );
}
