import { z } from 'zod';
import type { ExploreCluster, PreviewRow } from '../../db/repositories/explore';
import type { UrlSigner } from '../../lib/auth/signedUrls';

const distinct = <T>(values: T[], key: (value: T) => string = String) => [...new Map(values.map((v) => [key(v), v])).values()];
const orNull = <T>(values: T[]) => (values.length > 0 ? values : null);
/** Search results carry their cosine distance to the query; plain listings carry none. */
const relevanceOf = (distance: number | null) =>
  distance === null ? {} : { relevance_score: distance, relevance_score_type: 'cosine_distance' as const };

const relevance = {
  relevance_score: z.number().optional().meta({ description: 'Cosine distance to the query; only in search results' }),
  relevance_score_type: z.literal('cosine_distance').optional(),
};

export const previewSchema = z
  .object({
    type: z.literal('IMAGE'),
    media_id: z.uuid(),
    media_uri: z.string().meta({ description: 'Signed, expiring link to the file' }),
    media_thumb_uri: z.string().meta({ description: 'Signed, expiring link to the thumbnail (JPEG, longest side 256 px)' }),
    caption: z.string().nullable(),
    file_name: z.string(),
    bounding_box: z
      .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
      .nullable()
      .meta({ description: "The object's box in its image, as fractions of its width and height (OBJECTS results); null for images" }),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    class: z.string().nullable().meta({ description: "Its class: the value of the dataset's declared label field (the user's label, GET …/classes); null without one" }),
    ...relevance,
  })
  .meta({ id: 'Preview' });

export const clusterSchema = z
  .object({
    cluster_id: z.uuid(),
    type: z.enum(['IMAGES', 'OBJECTS']),
    n_images: z.number().int(),
    n_objects: z.number().int(),
    n_videos: z.number().int(),
    similarity_threshold: z.string(),
    captions: z.array(z.string()).nullable(),
    previews: z.array(previewSchema),
    labels: z.array(z.string()).nullable(),
    classes: z.array(z.string()).nullable().meta({ description: "The previews' classes (the user's labels), distinct; null when none has one" }),
    user_tags: z.array(z.object({ id: z.uuid(), name: z.string() })).nullable(),
    ...relevance,
  })
  .meta({ id: 'Cluster' });

/** A preview with its signed links under `origin` (PUBLIC_URL). */
export function presentPreview(row: PreviewRow, origin: string, signer: UrlSigner): z.output<typeof previewSchema> {
  return {
    type: 'IMAGE',
    media_id: row.id,
    media_uri: origin + signer.mediaPath(row.id, 'file'),
    media_thumb_uri: origin + signer.mediaPath(row.id, 'thumbnail'),
    caption: row.caption,
    file_name: row.file_name,
    bounding_box: row.bounding_box ?? null,
    width: row.width,
    height: row.height,
    class: row.class,
    ...relevanceOf(row.relevance),
  };
}

export function presentCluster(cluster: ExploreCluster, threshold: number, origin: string, signer: UrlSigner): z.output<typeof clusterSchema> {
  const preview = (row: PreviewRow) => presentPreview(row, origin, signer);
  return {
    cluster_id: cluster.cluster_id,
    type: cluster.type,
    n_images: cluster.n_images + cluster.n_frames,
    n_objects: cluster.n_objects,
    n_videos: cluster.n_videos,
    similarity_threshold: String(threshold),
    captions: orNull(distinct(cluster.previews.flatMap((p) => (p.caption ? [p.caption] : [])))),
    previews: cluster.previews.map(preview),
    labels: orNull(distinct(cluster.previews.flatMap((p) => p.labels ?? []))),
    classes: orNull(distinct(cluster.previews.flatMap((p) => (p.class ? [p.class] : [])))),
    user_tags: orNull(distinct(cluster.previews.flatMap((p) => p.tags ?? []), (tag) => tag.id)),
    ...relevanceOf(cluster.relevance),
  };
}
