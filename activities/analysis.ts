import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { Db } from '../db/connection';
import { clusterByThresholds, CLUSTER_SIMILARITY_CUTOFFS, type SimilarityEdge } from '../lib/clustering/clusterByThresholds';
import { placeBatch, type ClusterLink } from '../lib/clustering/placeBatch';
import { neighbourStats, scoreNeighbours, type NeighbourItem, type NeighbourScores, type NeighbourStats } from '../lib/quality/neighbourScores';
import { datasetCollection, type VectorHit, type VectorStore } from '../lib/vectors/vectorStore';
import { createProgressReporter, type TaskRef } from './progress';

/** Neighbours per item in the kNN graph. */
const GRAPH_K = 10;
const QUERY_BATCH = 256;
const INSERT_BATCH = 5000;

interface AnalysisItem {
  id: string;
  kind: 'IMAGE' | 'VIDEO_FRAME';
  parent_id: string | null;
  embedded: boolean;
}

async function insertInBatches(trx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) await trx(table).insert(rows.slice(i, i + INSERT_BATCH));
}

/** Recounts the members of clusters, so stored sizes always match cluster_members. */
async function recountClusters(trx: Knex.Transaction, clusterIds: string[]): Promise<void> {
  for (let i = 0; i < clusterIds.length; i += INSERT_BATCH) {
    await trx.raw(
      `UPDATE clusters c SET n_images = s.n_images, n_frames = s.n_frames, n_videos = s.n_videos, size = s.size
       FROM (SELECT cm.cluster_id,
                    count(*) FILTER (WHERE m.kind = 'IMAGE')::int AS n_images,
                    count(*) FILTER (WHERE m.kind = 'VIDEO_FRAME')::int AS n_frames,
                    count(DISTINCT m.parent_id)::int AS n_videos,
                    count(*)::int AS size
             FROM cluster_members cm JOIN media m ON m.id = cm.media_id
             WHERE cm.cluster_id = ANY(?::uuid[]) GROUP BY cm.cluster_id) s
       WHERE c.id = s.cluster_id`,
      [clusterIds.slice(i, i + INSERT_BATCH)],
    );
  }
}

/** Writes the neighbour-based issues (duplicates, outliers) and uniqueness of scored items, replacing earlier ones. */
async function writeNeighbourScores(trx: Knex.Transaction, datasetId: string, scored: Array<{ id: string; score: NeighbourScores }>) {
  await trx('media_issues')
    .whereRaw('media_id = ANY(?::uuid[])', [scored.map(({ id }) => id)])
    .whereIn('issue_type', ['duplicates', 'outliers'])
    .delete();
  const issueRows = scored.flatMap(({ id, score }) =>
    score.issues.map((issue) => ({
      media_id: id,
      dataset_id: datasetId,
      issue_type: issue.type,
      confidence: issue.confidence,
      details: issue.details ? JSON.stringify(issue.details) : null,
    })),
  );
  await insertInBatches(trx, 'media_issues', issueRows);
  for (let i = 0; i < scored.length; i += INSERT_BATCH) {
    const slice = scored.slice(i, i + INSERT_BATCH);
    await trx.raw(
      `UPDATE media SET uniqueness_score = v.score
       FROM (SELECT unnest(?::uuid[]) AS id, unnest(?::real[]) AS score) v WHERE media.id = v.id`,
      [slice.map(({ id }) => id), slice.map(({ score }) => score.uniqueness)],
    );
  }
}

/**
 * Clustering and neighbour scores. `analyzeDataset` builds the kNN similarity graph from the vector
 * index (never all pairs), clusters it at the five thresholds and scores every item; `indexBatch`
 * places a batch of added media into the existing clustering and scores it against the whole
 * dataset. Each replaces what it writes in one transaction, so Explore never sees half of it.
 */
export function createAnalysisActivities(deps: { db: Db; vectors: VectorStore }) {
  const { db, vectors } = deps;

  /** The nearest neighbours (self included) of stored items, in batches, heartbeating. */
  async function neighboursOf(
    collection: string,
    ids: string[],
    onBatch: (done: number) => Promise<void>,
  ): Promise<VectorHit[][]> {
    const context = Context.current();
    const results: VectorHit[][] = [];
    for (let start = 0; start < ids.length; start += QUERY_BATCH) {
      context.heartbeat({ start });
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      const batch = ids.slice(start, start + QUERY_BATCH);
      const stored = await vectors.get(collection, batch);
      const queries = batch.map((id) => stored.get(id));
      if (queries.some((vector) => !vector)) throw new Error('an embedded media item has no vector in the index');
      results.push(...(await vectors.searchMany(collection, queries as Float32Array[], GRAPH_K + 1)));
      await onBatch(start + batch.length);
    }
    return results;
  }

  return {
    async analyzeDataset(ref: TaskRef): Promise<{ items: number; edges: number }> {
      const items: AnalysisItem[] = await db('media')
        .where({ dataset_id: ref.datasetId })
        .whereIn('kind', ['IMAGE', 'VIDEO_FRAME'])
        .orderBy('id')
        .select('id', 'kind', 'parent_id', 'embedded');
      const indexOf = new Map(items.map((item, i) => [item.id, i]));
      const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
      const report = createProgressReporter(db, ref, 'analyze', 'Clustering');

      const neighbourItems: NeighbourItem[] = items.map((item) => ({ neighbours: [], group: item.parent_id ?? undefined }));
      const edges = new Map<string, SimilarityEdge>();
      const results = await neighboursOf(datasetCollection(ref.datasetId), embedded.map(({ item }) => item.id), (done) =>
        report(done, embedded.length + 1),
      );
      results.forEach((hits, b) => {
        const a = embedded[b].i;
        for (const hit of hits) {
          const j = indexOf.get(hit.id);
          if (j === undefined || j === a) continue;
          const similarity = 1 - hit.distance;
          neighbourItems[a].neighbours.push({ index: j, similarity });
          const key = a < j ? `${a}:${j}` : `${j}:${a}`;
          const known = edges.get(key);
          if (!known || known.similarity < similarity) edges.set(key, { a: Math.min(a, j), b: Math.max(a, j), similarity });
        }
      });

      const levels = clusterByThresholds(items.length, [...edges.values()]);
      const reference = neighbourStats(embedded.map(({ i }) => neighbourItems[i]));
      const scores = scoreNeighbours(neighbourItems, items.map((item) => item.id), { reference });

      await db.transaction(async (trx) => {
        await trx('clusters').where({ dataset_id: ref.datasetId }).delete();
        const clusterRows: object[] = [];
        const memberRows: object[] = [];
        levels.forEach((labels, threshold) => {
          const members = new Map<number, number[]>();
          labels.forEach((label, i) => {
            const list = members.get(label);
            if (list) list.push(i);
            else members.set(label, [i]);
          });
          for (const indexes of members.values()) {
            const id = randomUUID();
            const frames = indexes.filter((i) => items[i].kind === 'VIDEO_FRAME');
            clusterRows.push({
              id,
              dataset_id: ref.datasetId,
              threshold,
              n_images: indexes.length - frames.length,
              n_frames: frames.length,
              n_videos: new Set(frames.map((i) => items[i].parent_id)).size,
              size: indexes.length,
            });
            for (const i of indexes) memberRows.push({ dataset_id: ref.datasetId, threshold, media_id: items[i].id, cluster_id: id });
          }
        });
        await insertInBatches(trx, 'clusters', clusterRows);
        await insertInBatches(trx, 'cluster_members', memberRows);
        await writeNeighbourScores(trx, ref.datasetId, embedded.map(({ item, i }) => ({ id: item.id, score: scores[i] })));
        await trx('datasets').where({ id: ref.datasetId }).update({ neighbour_stats: JSON.stringify(reference) });
      });
      await report(embedded.length + 1, embedded.length + 1, true);
      return { items: items.length, edges: edges.size };
    },

    /**
     * Places the not yet placed images and frames of one batch into the dataset's clusters at every
     * threshold (see placeBatch) and scores them against the whole dataset. Safe to repeat: placed
     * items are skipped.
     */
    async indexBatch(ref: TaskRef & { batchId: string }): Promise<{ placed: number }> {
      const items: AnalysisItem[] = await db('media as m')
        .where({ 'm.dataset_id': ref.datasetId, 'm.batch_id': ref.batchId })
        .whereIn('m.kind', ['IMAGE', 'VIDEO_FRAME'])
        .whereNotExists(db('cluster_members as cm').whereRaw('cm.media_id = m.id').where('cm.threshold', 0))
        .orderBy('m.id')
        .select('m.id', 'm.kind', 'm.parent_id', 'm.embedded');
      if (items.length === 0) return { placed: 0 };
      const report = createProgressReporter(db, ref, 'analyze', 'Placing new media');
      const batchIndex = new Map(items.map((item, i) => [item.id, i]));
      const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
      const results = await neighboursOf(datasetCollection(ref.datasetId), embedded.map(({ item }) => item.id), (done) =>
        report(done, embedded.length + 1),
      );

      // Neighbours outside the batch: their video (for duplicates) and their cluster at each threshold.
      const outsideIds = [...new Set(results.flat().map((hit) => hit.id).filter((id) => !batchIndex.has(id)))];
      // One array parameter, not one per id: a big batch has more neighbours than a statement has parameters.
      const outside: Array<{ id: string; parent_id: string | null }> = await db('media')
        .whereRaw('id = ANY(?::uuid[])', [outsideIds])
        .select('id', 'parent_id');
      const memberships: Array<{ media_id: string; threshold: number; cluster_id: string }> = await db('cluster_members')
        .where({ dataset_id: ref.datasetId })
        .whereRaw('media_id = ANY(?::uuid[])', [outsideIds])
        .select('media_id', 'threshold', 'cluster_id');
      const clusterOf = new Map(memberships.map((m) => [`${m.threshold}:${m.media_id}`, m.cluster_id]));
      // Scores index neighbours over the batch followed by the outside items.
      const ids = [...items.map((item) => item.id), ...outside.map((item) => item.id)];
      const groups = [...items.map((item) => item.parent_id ?? undefined), ...outside.map((item) => item.parent_id ?? undefined)];
      const indexOf = new Map(ids.map((id, i) => [id, i]));

      const innerEdges: SimilarityEdge[] = [];
      const outsideHits: Array<{ item: number; id: string; similarity: number }> = [];
      const neighbourItems: NeighbourItem[] = embedded.map(({ item, i }, b) => {
        const neighbours = [];
        for (const hit of results[b]) {
          const j = indexOf.get(hit.id);
          if (j === undefined || j === i) continue;
          const similarity = 1 - hit.distance;
          neighbours.push({ index: j, similarity });
          if (j < items.length) innerEdges.push({ a: i, b: j, similarity });
          else outsideHits.push({ item: i, id: hit.id, similarity });
        }
        return { neighbours, group: item.parent_id ?? undefined };
      });

      const dataset = await db('datasets').where({ id: ref.datasetId }).first('neighbour_stats');
      const reference: NeighbourStats = dataset?.neighbour_stats ?? neighbourStats(neighbourItems);
      const scores = scoreNeighbours(neighbourItems, ids, { reference, groupOf: (index) => groups[index] });

      await db.transaction(async (trx) => {
        const clusterRows: object[] = [];
        const memberRows: object[] = [];
        const touched = new Set<string>();
        CLUSTER_SIMILARITY_CUTOFFS.forEach((cutoff, threshold) => {
          const links: ClusterLink[] = outsideHits.flatMap((hit) => {
            const clusterId = clusterOf.get(`${threshold}:${hit.id}`);
            return clusterId ? [{ item: hit.item, clusterId, similarity: hit.similarity }] : [];
          });
          const newClusters = new Map<number, string>();
          placeBatch(items.length, innerEdges, links, cutoff).forEach((placement, i) => {
            let clusterId: string;
            if ('clusterId' in placement) {
              clusterId = placement.clusterId;
            } else {
              clusterId = newClusters.get(placement.group) ?? randomUUID();
              if (!newClusters.has(placement.group)) {
                newClusters.set(placement.group, clusterId);
                clusterRows.push({ id: clusterId, dataset_id: ref.datasetId, threshold, n_images: 0, n_frames: 0, n_videos: 0, size: 0 });
              }
            }
            touched.add(clusterId);
            memberRows.push({ dataset_id: ref.datasetId, threshold, media_id: items[i].id, cluster_id: clusterId });
          });
        });
        await insertInBatches(trx, 'clusters', clusterRows);
        await insertInBatches(trx, 'cluster_members', memberRows);
        await recountClusters(trx, [...touched]);
        await writeNeighbourScores(trx, ref.datasetId, embedded.map(({ item }, b) => ({ id: item.id, score: scores[b] })));
      });
      await report(embedded.length + 1, embedded.length + 1, true);
      return { placed: items.length };
    },
  };
}
