import type { ExploreCluster, PreviewRow } from '../../db/repositories/explore';
import type { UrlSigner } from '../../lib/auth/signedUrls';

const distinct = <T>(values: T[], key: (value: T) => string = String) => [...new Map(values.map((v) => [key(v), v])).values()];
const orNull = <T>(values: T[]) => (values.length > 0 ? values : null);
/** Search results carry their cosine distance to the query; plain listings carry none. */
const relevanceOf = (distance: number | null) =>
  distance === null ? {} : { relevance_score: distance, relevance_score_type: 'cosine_distance' };

export function presentCluster(cluster: ExploreCluster, threshold: number, origin: string, signer: UrlSigner) {
  const preview = (row: PreviewRow) => ({
    type: 'IMAGE',
    media_id: row.id,
    media_uri: origin + signer.mediaPath(row.id, 'file'),
    media_thumb_uri: origin + signer.mediaPath(row.id, 'thumbnail'),
    caption: row.caption,
    file_name: row.file_name,
    bounding_box: null,
    width: row.width,
    height: row.height,
    ...relevanceOf(row.relevance),
  });
  return {
    cluster_id: cluster.cluster_id,
    type: 'IMAGES',
    n_images: cluster.n_images + cluster.n_frames,
    n_objects: 0,
    n_videos: cluster.n_videos,
    similarity_threshold: String(threshold),
    captions: orNull(distinct(cluster.previews.flatMap((p) => (p.caption ? [p.caption] : [])))),
    previews: cluster.previews.map(preview),
    labels: orNull(distinct(cluster.previews.flatMap((p) => p.labels ?? []))),
    user_tags: orNull(distinct(cluster.previews.flatMap((p) => p.tags ?? []), (tag) => tag.id)),
    ...relevanceOf(cluster.relevance),
  };
}
