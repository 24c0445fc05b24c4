import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { Db } from '../db/connection';
import { clusterByThresholds, type SimilarityEdge } from '../lib/clustering/clusterByThresholds';
import { scoreNeighbours, type NeighbourItem } from '../lib/quality/neighbourScores';
import { datasetCollection, type VectorStore } from '../lib/vectors/vectorStore';
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

/**
 * Builds the kNN similarity graph from the vector index (never all pairs), clusters it at the five
 * thresholds, scores uniqueness, duplicates and outliers, and replaces the dataset's clusters and
 * neighbour-based issues in one transaction, so Explore never sees a half-written clustering.
 */
export function createAnalysisActivities(deps: { db: Db; vectors: VectorStore }) {
  const { db, vectors } = deps;
  return {
    async analyzeDataset(ref: TaskRef): Promise<{ items: number; edges: number }> {
      const context = Context.current();
      const collection = datasetCollection(ref.datasetId);
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
      for (let start = 0; start < embedded.length; start += QUERY_BATCH) {
        context.heartbeat({ start });
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
        const batch = embedded.slice(start, start + QUERY_BATCH);
        const stored = await vectors.get(collection, batch.map(({ item }) => item.id));
        const queries = batch.map(({ item }) => stored.get(item.id));
        if (queries.some((vector) => !vector)) throw new Error('an embedded media item has no vector in the index');
        const results = await vectors.searchMany(collection, queries as Float32Array[], GRAPH_K + 1);
        results.forEach((hits, b) => {
          const a = batch[b].i;
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
        await report(start + batch.length, embedded.length + 1);
      }

      const levels = clusterByThresholds(items.length, [...edges.values()]);
      const scores = scoreNeighbours(neighbourItems, items.map((item) => item.id));

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

        await trx('media_issues').where({ dataset_id: ref.datasetId }).whereIn('issue_type', ['duplicates', 'outliers']).delete();
        const issueRows = scores.flatMap((score, i) =>
          items[i].embedded
            ? score.issues.map((issue) => ({
                media_id: items[i].id,
                dataset_id: ref.datasetId,
                issue_type: issue.type,
                confidence: issue.confidence,
                details: issue.details ? JSON.stringify(issue.details) : null,
              }))
            : [],
        );
        await insertInBatches(trx, 'media_issues', issueRows);

        const uniqueness = embedded.map(({ item, i }) => [item.id, scores[i].uniqueness] as const);
        for (let i = 0; i < uniqueness.length; i += INSERT_BATCH) {
          const slice = uniqueness.slice(i, i + INSERT_BATCH);
          await trx.raw(
            `UPDATE media SET uniqueness_score = v.score
             FROM (SELECT unnest(?::uuid[]) AS id, unnest(?::real[]) AS score) v WHERE media.id = v.id`,
            [slice.map(([id]) => id), slice.map(([, score]) => score)],
          );
        }
      });
      await report(embedded.length + 1, embedded.length + 1, true);
      return { items: items.length, edges: edges.size };
    },
  };
}
