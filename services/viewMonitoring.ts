import type { Db } from '../db/connection';
import { datasetCollaboratorIds, datasetName } from '../db/repositories/datasets';
import { captionedBatchMedia } from '../db/repositories/media';
import { taskStartTime } from '../db/repositories/tasks';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import { countBatchMatches, monitoredViewsBefore, type BatchMatches, type ViewRow } from '../db/repositories/views';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { splitVql } from '../lib/vql/compileVql';
import { parseVql } from '../lib/vql/parseVql';
import type { TaskRef } from './taskProgress';
import { recordViewResult } from './views';

/** Cosine distance under which a caption matches a view's text when the view sets no threshold (0). */
export const DEFAULT_VIEW_TEXT_DISTANCE = 0.5;

/** The count a view's entity type looks at: images and frames, videos, or detected objects. */
function resultCount(entityType: ViewRow['filters']['entity_type'], matches: BatchMatches): number {
  if (entityType === 'VIDEOS') return matches.n_videos;
  if (entityType === 'OBJECTS') return matches.n_objects;
  return matches.n_images + matches.n_video_frames;
}

export interface ViewMonitoringDeps {
  db: Db;
  vectors: VectorStore;
  textEncoder: TextEncoder;
}

/**
 * Saved-view monitoring: after a batch is indexed, every monitored view created before the batch
 * counts the batch's new media that pass its filters, records a trend point and its running stats,
 * and, with alerting on and new results, notifies each collaborator of the dataset.
 */
export async function evaluateViews(deps: ViewMonitoringDeps, ref: TaskRef & { batchId: string }): Promise<{ views: number; alerts: number }> {
  const { db } = deps;
  const datasetDisplayName = await datasetName(db, ref.datasetId);
  const version = await headVersion(db, ref.datasetId);
  const views = await monitoredViewsBefore(db, ref.datasetId, await taskStartTime(db, ref.taskId));
  const users = await datasetCollaboratorIds(db, ref.datasetId);
  let alerts = 0;
  for (const view of views) {
    const { count, stats } = await evaluate(deps, version, view, ref.batchId);
    alerts += await recordViewResult(db, view, { batchId: ref.batchId, count, stats }, { users, datasetId: ref.datasetId, datasetName: datasetDisplayName });
  }
  return { views: views.length, alerts };
}

/** Batch media whose caption is within each semantic text's distance (AND over the texts). */
async function semanticMatches(deps: ViewMonitoringDeps, version: DatasetVersion, batchId: string, texts: Array<{ value: string; maxDistance: number }>) {
  const { db, vectors } = deps;
  const captioned = await captionedBatchMedia(db, version.id, batchId);
  if (captioned.length === 0) return [];
  const stored = await vectors.get(captionCollection(version.vector_space_id), [...new Set(captioned.map((media) => media.caption_key))]);
  const queries = await deps.textEncoder.encode(texts.map((text) => text.value));
  return captioned.flatMap(({ id, caption_key }) => {
    const vector = stored.get(caption_key);
    if (!vector) return [];
    return queries.every((query, q) => {
      let dot = 0;
      for (let i = 0; i < query.length; i++) dot += query[i] * vector[i];
      return 1 - dot < texts[q].maxDistance;
    })
      ? [id]
      : [];
  });
}

async function evaluate(deps: ViewMonitoringDeps, version: DatasetVersion, view: ViewRow, batchId: string): Promise<{ count: number; stats: ViewRow['stats'] }> {
  const { filters, semantic } = splitVql(parseVql(JSON.stringify(view.filters.vql)));
  const viewDistance = Number(view.filters.threshold) > 0 ? Number(view.filters.threshold) : DEFAULT_VIEW_TEXT_DISTANCE;
  const texts = semantic.map((filter) => ({ value: filter.value, maxDistance: filter.threshold ?? viewDistance }));
  if (view.filters.caption) texts.push({ value: view.filters.caption, maxDistance: viewDistance });
  const ids = texts.length > 0 ? await semanticMatches(deps, version, batchId, texts) : undefined;
  const matches = await countBatchMatches(deps.db, { versionId: version.id, batchId, filters, ids });
  // Stats are -1 until the first evaluation, then running totals over the evaluated batches.
  const sofar = (value: number) => Math.max(0, value);
  return {
    count: resultCount(view.filters.entity_type, matches),
    stats: {
      n_images: sofar(view.stats.n_images) + matches.n_images,
      n_objects: sofar(view.stats.n_objects) + matches.n_objects,
      n_video_frames: sofar(view.stats.n_video_frames) + matches.n_video_frames,
    },
  };
}
