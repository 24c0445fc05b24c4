import type { Db } from '../db/connection';
import { findKnnGraphManifest } from '../db/repositories/knnEdges';
import { claimDueMap, writeDueMap } from '../db/repositories/mapPoints';
import { findTaskInput, insertTask, taskCreator, updateTaskProgress } from '../db/repositories/tasks';
import { findVersion, headVersion } from '../db/repositories/versions';
import { neighboursIn } from '../lib/clustering/knnGraph';
import { layoutMap } from '../lib/map/layoutMap';
import { shuffled } from '../lib/map/shuffled';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { mapPointSlices } from './analysisResults';
import { storedGraphOf, WRITE_SLICE } from './graphClustering';
import type { Liveness } from './taskLiveness';
import { markTaskCompleted } from './taskTypes';
import { storedVectors } from './vectorNeighbours';
import type { DueMapLayout, MapLayoutInput } from '../workflows/contracts';

/**
 * The first step of MAP_LAYOUT task `input.taskId` (docs/decisions.md "The map is laid out after READY"): records
 * the task, started by the analysing task `byTaskId` (its creator's), for the layout due on the dataset's head
 * version, and returns what to lay out; null, recording nothing, when no layout is due. Safe to repeat: a recorded
 * task's layout is returned again.
 */
export async function recordMapLayoutTask(db: Db, input: MapLayoutInput): Promise<DueMapLayout | null> {
  return db.transaction(async (trx) => {
    const recorded = await findTaskInput(trx, input.taskId);
    if (recorded) return recorded as DueMapLayout;
    const createdBy = await taskCreator(trx, input.byTaskId);
    const version = await headVersion(trx, input.datasetId);
    const layoutId = createdBy && (await claimDueMap(trx, version.id, input.taskId));
    if (!layoutId || !createdBy) return null;
    const due: DueMapLayout = { ...input, versionId: version.id, layoutId };
    await insertTask(trx, { taskId: input.taskId, datasetId: input.datasetId, taskType: 'MAP_LAYOUT', createdBy, input: due, statusMessage: 'Map: waiting to be laid out' });
    return due;
  });
}

/**
 * Lays out the version's due map from its stored kNN graph (layoutMap: UMAP of a sample, the rest from their
 * neighbours) and writes it with the task's end in one transaction; a layout no longer due (a later analysis is due
 * another, laid out by its own task) writes nothing. A repeated attempt lays it out again.
 */
export async function layOutDueMap(deps: { db: Db; vectors: VectorStore }, live: Liveness, input: DueMapLayout): Promise<{ points: number } | null> {
  const { db, vectors } = deps;
  const version = await findVersion(db, input.versionId);
  // Written already: an attempt whose end was lost.
  if (version?.map_layout_id === input.layoutId) return null;
  const manifest = version && (await findKnnGraphManifest(db, version.id));
  if (!version || version.map_due !== input.layoutId || !manifest) {
    await markTaskCompleted(db, input.taskId, 'Map: a later analysis lays it out');
    return null;
  }
  await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Map: laying out', phase: 'map', progressPercentage: 0 });
  const { ids, items, graph } = await storedGraphOf(db, live, version, manifest.chunks);
  const embedded: number[] = [];
  items.embedded.forEach((yes, i) => yes && embedded.push(i));
  const collection = imageCollection(version.vector_space_id);
  const layout = await layoutMap({
    count: ids.length,
    embedded,
    neighboursOf: (i) => neighboursIn(graph, i),
    vectorsOf: (indexes) => storedVectors(vectors, collection, indexes.map((i) => ids[i])),
  });
  live.heartbeat();
  // Points in a random order, as analyzeDataset writes them (any first part of the map's pages is an even sample).
  const mapPoints = mapPointSlices(shuffled(embedded, 11), ids, layout.positions, WRITE_SLICE);
  return db.transaction(async (trx) => {
    const written = await writeDueMap(trx, version.id, input.layoutId, mapPoints);
    await markTaskCompleted(trx, input.taskId, written ? `Map laid out: ${embedded.length} points` : 'Map: a later analysis lays it out');
    return written ? { points: embedded.length } : null;
  });
}
