import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import type { Db } from '../../db/connection';
import { countFacets } from '../../db/repositories/clusterFacets';
import { CLUSTERING_OF } from '../../db/repositories/clusteringOf';
import { refreshExploreCopies } from '../../db/repositories/clusters';
import { createDataset } from '../../db/repositories/datasets';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { loadTextEncoder } from '../../lib/ml/textEncoder';
import { sha256Hex } from '../../lib/sha256';
import { blobKey, type ObjectStore } from '../../lib/storage/objectStore';
import { captionCollection, imageCollection, type VectorStore } from '../../lib/vectors/vectorStore';

export const WORDS = ['cat', 'dog', 'car', 'tree', 'beach', 'mountain', 'cup', 'coffee', 'bicycle', 'city', 'river', 'bird', 'flower', 'house', 'boat', 'child', 'street', 'snow', 'forest', 'bridge'];

/** Cluster sizes at thresholds 0-4 of a synthetic dataset. */
const CLUSTER_SIZES = [1, 3, 10, 30, 100];

/**
 * A READY dataset of `count` images made straight in Postgres, shaped like an indexed one: media
 * (a third captioned), 5 clustering levels, issues, labels and a tag, and their counts per cluster. Vectors are the caller's.
 */
export async function seedSyntheticDataset(
  db: Db,
  count: number,
  dim: number,
  options: { analyze?: boolean } = {},
): Promise<{ datasetId: string; versionId: string; tagId: string }> {
  // analyze: false leaves the tables as a task's writes leave them, never analyzed (fine to a few hundred thousand media).
  const analyze = options.analyze ?? true;
  const admin = await db('users').first();
  const workspace = await db('workspaces').first();
  const dataset = await createDataset(db, { name: `bench-${count}`, ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
  await db('datasets')
    .where({ id: dataset.id })
    .update({ progress: 100, n_images: count, embedding_config: JSON.stringify({ model: 'bench', dim }) });
  const versionId = dataset.head_version_id!;

  await db.raw(
    `INSERT INTO media (version_id, id, kind, batch_id, file_name, blob_sha256, thumb_sha256, width, height, format,
                        uniqueness_score, embedded, caption, caption_embedded)
     SELECT ?, gen_random_uuid(), 'IMAGE', ?, 'img_' || g || '.jpg', md5(g::text) || md5(g::text), md5(g::text) || md5(g::text),
            640, 480, 'jpeg', (g::bigint * 7919 % 1000) / 1000.0, true,
            CASE WHEN g % 3 = 0 THEN 'a ' || (?::text[])[1 + g % 20] || ' near a ' || (?::text[])[1 + (g / 20) % 20] END, false
     FROM generate_series(1, ?) g`,
    [versionId, randomUUID(), WORDS, WORDS, count],
  );
  for (let threshold = 0; threshold < CLUSTER_SIZES.length; threshold++) {
    await db.raw(
      `WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM media WHERE version_id = ?),
            grouped AS (SELECT id, (n - 1) / ? AS g FROM numbered),
            made AS (INSERT INTO clusters (clustering_id, id, threshold, n_images, n_videos, n_frames, size)
                     SELECT ${CLUSTERING_OF}, gen_random_uuid(), ?, count(*), 0, 0, count(*) FROM grouped GROUP BY g RETURNING id, size)
       SELECT 1`,
      [versionId, CLUSTER_SIZES[threshold], versionId, threshold],
    );
    // Fresh statistics, or the planner takes a million new clusters for a few and joins them by nested loop (minutes at 1,000,000).
    if (analyze) await db.raw('ANALYZE clusters');
    await db.raw(
      `WITH numbered AS (SELECT id, (row_number() OVER (ORDER BY id) - 1) / ? AS g FROM media WHERE version_id = ?),
            ordered AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS g FROM clusters WHERE clustering_id = ${CLUSTERING_OF} AND threshold = ?)
       INSERT INTO cluster_members (clustering_id, threshold, media_id, cluster_id)
       SELECT ${CLUSTERING_OF}, ?, numbered.id, ordered.id FROM numbered JOIN ordered USING (g)`,
      [CLUSTER_SIZES[threshold], versionId, versionId, threshold, versionId, threshold],
    );
  }
  await refreshExploreCopies(db, versionId, (await db('dataset_versions').where({ id: versionId }).first('clustering_id')).clustering_id, 'all');
  await db.raw(
    `INSERT INTO media_issues (version_id, media_id, issue_type, confidence, details)
     SELECT ?, id, t.issue, 0.8, CASE WHEN t.issue = 'duplicates' THEN jsonb_build_object('similarity', 0.9 + random() / 10, 'tier', 'near_identical') END
     FROM (SELECT id, row_number() OVER () AS n FROM media WHERE version_id = ?) m
     JOIN (VALUES ('dark', 20), ('blur', 33), ('duplicates', 50)) AS t(issue, every) ON m.n % t.every = 0`,
    [versionId, versionId],
  );
  await db.raw(
    `INSERT INTO media_labels (version_id, media_id, label, source)
     SELECT ?, id, (?::text[])[1 + n % 20], 'bench' FROM (SELECT id, row_number() OVER () AS n FROM media WHERE version_id = ?) m WHERE n % 5 = 0`,
    [versionId, WORDS, versionId],
  );
  const [tag] = await db('tags').insert({ version_id: versionId, name: 'picked' }).returning('id');
  await db.raw(
    `INSERT INTO media_tags (version_id, media_id, tag_id)
     SELECT ?, id, ? FROM (SELECT id, row_number() OVER () AS n FROM media WHERE version_id = ?) m WHERE n % 10 = 0`,
    [versionId, tag.id, versionId],
  );
  if (analyze) await db.raw('ANALYZE');
  // The per-cluster counts of issues, labels and tags, as an indexing task's end counts them: without them every
  // filtered page counts its rows, and the first task on the dataset (a bench's add_media) counts the whole version.
  await countFacets(db, versionId);
  return { datasetId: dataset.id, versionId, tagId: tag.id };
}

/** A photo as ingestion reads it: the decode's facts, and its JPEG thumbnail stored under its sha256. */
export interface PhotoFacts {
  thumbSha256: string;
  width: number;
  height: number;
  format: string;
  extension: string;
}

/** The file of one media item, stored content-addressed: a photo, by index, made distinct by a JPEG comment. */
export interface MediaFile {
  photo: number;
  sha256: string;
  sizeBytes: number;
}

/** A JPEG with a comment segment (COM) right after its start marker: the same picture, other bytes. */
function withJpegComment(jpeg: Buffer, comment: string): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG');
  const text = Buffer.from(comment, 'latin1');
  const header = Buffer.from([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff]);
  return Buffer.concat([jpeg.subarray(0, 2), header, text, jpeg.subarray(2)]);
}

/**
 * Files for `count` media stored as ingestion stores an upload (services/fileIngestion.ts: the bytes and the
 * decode's thumbnail under their sha256): media n is JPEG photo n mod photos with a comment naming n, so each
 * has bytes of its own as in a real dataset (a Parquet dictionary or a dedupe cannot fold them) and one decode.
 */
export async function storePhotoFiles(store: ObjectStore, jpegs: string[], count: number): Promise<{ photos: PhotoFacts[]; media: MediaFile[] }> {
  const bytes = jpegs.map((file) => fs.readFileSync(file));
  const photos: PhotoFacts[] = [];
  for (const [i, file] of jpegs.entries()) {
    const facts = await analyzeImage(bytes[i]);
    const thumbSha256 = sha256Hex(facts.thumbnail);
    await store.put(blobKey(thumbSha256), facts.thumbnail);
    photos.push({ thumbSha256, width: facts.width, height: facts.height, format: facts.format, extension: path.extname(file).toLowerCase() });
  }
  const limit = pLimit(8);
  const media = await Promise.all(
    Array.from({ length: count }, (_, n) =>
      limit(async (): Promise<MediaFile> => {
        const photo = n % jpegs.length;
        const file = withJpegComment(bytes[photo], `bench media ${n}`);
        const sha256 = sha256Hex(file);
        await store.put(blobKey(sha256), file);
        return { photo, sha256, sizeBytes: file.length };
      }),
    ),
  );
  return { photos, media };
}

/** Images per split and class, as `{ train: { cat: 800, … }, … }`. */
export type ClassCounts = Record<string, Record<string, number>>;

/**
 * Gives the media of a synthetic version real pictures and the user's labels, as a class-folder upload
 * leaves them: media n (in id order) gets file n of `files` (its photo's format, dimensions and thumbnail),
 * class n mod classes, the name `<class>/<n>.<ext>`, and split train, val or test (8:1:1 by n / 10, so apart
 * from the class) in custom metadata `label` and `split`, declared as the version's label and split fields
 * (the declaration alone, as before a label check). Returns the images per split and class.
 */
export async function labelSyntheticMedia(db: Db, versionId: string, files: { photos: PhotoFacts[]; media: MediaFile[] }, classes: string[]): Promise<ClassCounts> {
  const photoColumn = <K extends keyof PhotoFacts>(key: K) => files.photos.map((photo) => photo[key]);
  const mediaColumn = <K extends keyof MediaFile>(key: K) => files.media.map((file) => file[key]);
  await db.raw(
    `WITH numbered AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM media WHERE version_id = ?),
          photos AS (SELECT * FROM unnest(?::text[], ?::int[], ?::int[], ?::text[], ?::text[]) WITH ORDINALITY AS p(thumb_sha256, width, height, format, extension, i)),
          files AS (SELECT * FROM unnest(?::int[], ?::text[], ?::bigint[]) WITH ORDINALITY AS f(photo, sha256, size_bytes, i)),
          classes AS (SELECT * FROM unnest(?::text[]) WITH ORDINALITY AS c(label, i))
     UPDATE media m
        SET blob_sha256 = f.sha256, thumb_sha256 = p.thumb_sha256, width = p.width, height = p.height, format = p.format, size_bytes = f.size_bytes,
            file_name = c.label || '/' || lpad(s.n::text, 6, '0') || p.extension,
            custom_metadata = jsonb_build_object('label', c.label, 'split', CASE WHEN s.n / 10 % 10 < 8 THEN 'train' WHEN s.n / 10 % 10 = 8 THEN 'val' ELSE 'test' END)
       FROM numbered s JOIN files f ON f.i = 1 + s.n JOIN photos p ON p.i = 1 + f.photo JOIN classes c ON c.i = 1 + s.n % ?
      WHERE m.version_id = ? AND m.id = s.id`,
    [
      versionId,
      photoColumn('thumbSha256'),
      photoColumn('width'),
      photoColumn('height'),
      photoColumn('format'),
      photoColumn('extension'),
      mediaColumn('photo'),
      mediaColumn('sha256'),
      mediaColumn('sizeBytes'),
      classes,
      classes.length,
      versionId,
    ],
  );
  await db('dataset_versions').where({ id: versionId }).update({ label_quality: JSON.stringify({ label_field: 'label', split_field: 'split' }) });
  await db.raw('VACUUM ANALYZE media');
  const { rows } = await db.raw(
    `SELECT custom_metadata->>'split' AS split, custom_metadata->>'label' AS label, count(*)::int AS count FROM media WHERE version_id = ? GROUP BY 1, 2`,
    [versionId],
  );
  const counts: ClassCounts = {};
  for (const row of rows as Array<{ split: string; label: string; count: number }>) (counts[row.split] ??= {})[row.label] = row.count;
  return counts;
}

/**
 * Synthetic map points: 100 points a blob at pseudo-random centres, a point's blob picked by a scattering of
 * its index (n × 7919 mod count, a prime stride), so that the first points are an even sample of the map,
 * as the worker's random order of points makes them (services/graphClustering.ts).
 */
export async function seedMapPoints(db: Db, versionId: string, points: number): Promise<void> {
  await db.raw('SELECT setseed(0.42)');
  await db.raw(
    `INSERT INTO map_points (version_id, media_id, point_index, x, y)
     SELECT ?, id, n, sin(((n * 7919) % ? / 100) * 12.9898) * 0.9 + (random() - 0.5) * 0.04, cos(((n * 7919) % ? / 100) * 78.233) * 0.9 + (random() - 0.5) * 0.04
     FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1)::bigint AS n FROM media WHERE version_id = ?) m`,
    [versionId, points, points, versionId],
  );
  await db('dataset_versions').where({ id: versionId }).update({ map_layout_id: db.raw('gen_random_uuid()') });
  await db.raw('ANALYZE map_points');
}

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

/** Image vectors of a synthetic dataset: sampled around 1,000 random unit centres in `dim` dimensions plus noise, normalised. Returns the media ids. */
export async function writeSyntheticImageVectors(
  db: Db,
  store: VectorStore,
  options: { datasetId: string; versionId: string; dim: number },
): Promise<string[]> {
  const { datasetId, versionId, dim } = options;
  const ids: string[] = await db('media').where({ version_id: versionId }).orderBy('id').pluck('id');
  const vectors = syntheticImageVectors(dim);
  await store.ensureCollection(imageCollection(datasetId), dim);
  for (let i = 0; i < ids.length; i += 1000) {
    await store.upsert(imageCollection(datasetId), ids.slice(i, i + 1000).map((id) => ({ id, vector: vectors.next().value })));
  }
  return ids;
}

/**
 * The seeded image vectors of a synthetic dataset, in order: around 1,000 random centres (each item near one drawn at
 * random, so the groups are spread over media id order as real ones are) plus noise, normalised.
 */
export function* syntheticImageVectors(dim: number): Generator<Float32Array, never> {
  const random = seeded(42);
  const centres = Array.from({ length: 1000 }, () => Float32Array.from({ length: dim }, random));
  for (;;) {
    const centre = centres[Math.floor((random() + 0.5) * centres.length)];
    const vector = centre.map((value) => value + random() * 0.3);
    const norm = Math.hypot(...vector);
    yield vector.map((value) => value / norm);
  }
}

/**
 * Vectors for a synthetic dataset: image vectors as writeSyntheticImageVectors, caption vectors from
 * the real text encoder. Returns the media ids.
 */
export async function writeSyntheticVectors(
  db: Db,
  store: VectorStore,
  options: { datasetId: string; versionId: string; dim: number; modelsDir: string },
): Promise<{ ids: string[]; captions: number }> {
  const { datasetId, versionId } = options;
  const ids = await writeSyntheticImageVectors(db, store, options);
  const captions: Array<{ id: string; caption: string }> = await db('media')
    .where({ version_id: versionId })
    .whereNotNull('caption')
    .distinct('caption_key as id', 'caption');
  const text = await loadTextEncoder(options.modelsDir, os.availableParallelism());
  try {
    await store.ensureCollection(captionCollection(datasetId), text.dim);
    for (let i = 0; i < captions.length; i += 256) {
      const batch = captions.slice(i, i + 256);
      const vectors = await text.encode(batch.map((row) => row.caption));
      await store.upsert(captionCollection(datasetId), batch.map((row, j) => ({ id: row.id, vector: vectors[j] })));
    }
    // As after indexing: nothing is left for the worker to embed.
    await db('media').where({ version_id: versionId }).whereNotNull('caption').update({ caption_embedded: true });
  } finally {
    await text.close();
  }
  return { ids, captions: captions.length };
}
