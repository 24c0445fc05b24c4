import type { MouseEvent } from 'react';
import { Link } from 'react-router';
import { BoxedImage } from '../../components/BoxedImage';
import { hasCluster, type Selection } from '../selection/selection';
import type { Cluster, Preview } from './api';
import { similarity, thumbKey } from './previews';

interface ClusterCardProps {
  datasetId: string;
  cluster: Cluster;
  /** The one thumbnail of the grid that Tab reaches. */
  tabStop: string | undefined;
  onFocusThumb(key: string): void;
  onPick(preview: Preview): void;
  /** Opens an image in the viewer. */
  onOpen(preview: Preview): void;
  onSelect(preview: Preview): void;
  selecting: boolean;
  selection: Selection;
  onToggleMedia(mediaId: string, range: boolean): void;
  onToggleCluster(cluster: Cluster): void;
}

export function ClusterCard({ datasetId, cluster, onPick, onOpen, onSelect, tabStop, onFocusThumb, selecting, selection, onToggleMedia, onToggleCluster }: ClusterCardProps) {
  const objects = cluster.type === 'OBJECTS';
  const wholeCluster = hasCluster(selection, cluster.cluster_id);
  const isPicked = (mediaId: string) => wholeCluster || selection.mediaIds.includes(mediaId);
  const click = (preview: Preview) => (event: MouseEvent) => (selecting ? onToggleMedia(preview.media_id, event.shiftKey) : onOpen(preview));
  const members = objects ? cluster.n_objects : cluster.n_images + cluster.n_videos;
  return (
    <li className="cluster" data-cluster-id={cluster.cluster_id} data-n-objects={objects ? cluster.n_objects : undefined}>
      <div className="cluster-head">
        <strong>
          {objects ? `${plural(cluster.n_objects, 'object')} in ${plural(cluster.n_images, 'image')}` : plural(cluster.n_images, 'image')}
          {cluster.n_videos > 0 ? `, ${plural(cluster.n_videos, 'video')}` : ''}
        </strong>
        {cluster.relevance_score !== undefined && <span className="muted"> similarity {similarity(cluster.relevance_score).toFixed(3)}</span>}
        {selecting && (
          <button type="button" className="link-button" aria-pressed={wholeCluster} onClick={() => onToggleCluster(cluster)}>
            {wholeCluster ? 'Deselect cluster' : `Select cluster (${cluster.n_images})`}
          </button>
        )}
      </div>
      <div className="previews">
        {cluster.previews.map((preview, index) =>
          preview.bounding_box ? (
            // An image can hold several objects of one cluster: the index keeps their keys apart.
            <button
              key={thumbKey(preview, index)}
              type="button"
              className="thumb object"
              tabIndex={tabStop === thumbKey(preview, index) ? 0 : -1}
              title={`${preview.file_name} — ${preview.caption ?? 'object'}\nFind similar objects`}
              onClick={() => onPick(preview)}
              onFocus={() => {
                onFocusThumb(thumbKey(preview, index));
                onSelect(preview);
              }}
              onMouseEnter={() => onSelect(preview)}
            >
              <BoxedImage src={preview.media_thumb_uri} alt={preview.caption ?? preview.file_name} size={120} imageWidth={preview.width} imageHeight={preview.height} box={preview.bounding_box} label={preview.caption} lazy />
              <span className="object-caption">{preview.caption ?? '—'}</span>
            </button>
          ) : (
            <button
              key={preview.media_id}
              type="button"
              className={`thumb${isPicked(preview.media_id) ? ' selected' : ''}`}
              aria-pressed={selecting ? isPicked(preview.media_id) : undefined}
              tabIndex={tabStop === preview.media_id ? 0 : -1}
              data-media-id={preview.media_id}
              title={`${preview.file_name}${preview.class ? ` (${preview.class})` : ''}${preview.caption ? ` — ${preview.caption}` : ''}\n${selecting ? 'Select (Shift: a range)' : 'Open full screen'}`}
              onClick={click(preview)}
              onFocus={() => {
                onFocusThumb(preview.media_id);
                onSelect(preview);
              }}
              onMouseEnter={() => onSelect(preview)}
            >
              <img src={preview.media_thumb_uri} alt={preview.caption ?? preview.file_name} loading="lazy" decoding="async" width={96} height={96} />
            </button>
          ),
        )}
      </div>
      {members > cluster.previews.length && !objects && (
        <Link to={`/datasets/${datasetId}/clusters/${cluster.cluster_id}`}>
          +{members - cluster.previews.length} more: open the cluster
        </Link>
      )}
      {members > cluster.previews.length && objects && <div className="muted">+{members - cluster.previews.length} more</div>}
      {cluster.classes && <div className="muted">classes: {cluster.classes.join(', ')}</div>}
      {cluster.labels && <div className="muted">model labels: {cluster.labels.join(', ')}</div>}
      {cluster.user_tags && <div className="muted">tags: {cluster.user_tags.map((tag) => tag.name).join(', ')}</div>}
    </li>
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
