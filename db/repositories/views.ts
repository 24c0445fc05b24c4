import type { Db } from '../connection';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { applyFilter } from './explore';

export interface ViewFilters {
  entity_type: 'IMAGES' | 'OBJECTS' | 'VIDEOS';
  threshold: string;
  caption: string | null;
  vql: unknown[];
}

export interface ViewRow {
  id: string;
  dataset_id: string;
  name: string;
  created_at: Date;
  created_by: string;
  creator_email: string;
  creator_first_name: string | null;
  creator_last_name: string | null;
  filters: ViewFilters;
  stats: { n_images: number; n_objects: number; n_video_frames: number };
  monitoring_enabled: boolean;
  monitoring_started_at: Date;
  alerting_enabled: boolean;
  total_results: number;
  last_results: Date | null;
}

function views(db: Db) {
  return db('saved_views as v')
    .join('users as u', 'u.id', 'v.created_by')
    .select('v.*', 'u.email as creator_email', 'u.first_name as creator_first_name', 'u.last_name as creator_last_name');
}

/** Creates a view; undefined when the dataset already has a view of that name. */
export async function createView(
  db: Db,
  input: { datasetId: string; name: string; userId: string; filters: ViewFilters },
): Promise<ViewRow | undefined> {
  const [row] = await db('saved_views')
    .insert({ dataset_id: input.datasetId, name: input.name, created_by: input.userId, filters: JSON.stringify(input.filters) })
    .onConflict(['dataset_id', 'name'])
    .ignore()
    .returning('id');
  return row ? findView(db, input.datasetId, row.id) : undefined;
}

export async function findView(db: Db, datasetId: string, viewId: string): Promise<ViewRow | undefined> {
  return views(db).where({ 'v.id': viewId, 'v.dataset_id': datasetId }).first();
}

export async function listViews(db: Db, datasetId: string): Promise<ViewRow[]> {
  return views(db).where('v.dataset_id', datasetId).orderBy('v.created_at');
}

/** Renames a view: 'renamed', 'missing', or 'taken' when another view of the dataset has that name. */
export async function renameView(db: Db, datasetId: string, viewId: string, name: string): Promise<'renamed' | 'missing' | 'taken'> {
  try {
    return (await db('saved_views').where({ id: viewId, dataset_id: datasetId }).update({ name })) === 1 ? 'renamed' : 'missing';
  } catch (error) {
    // The unique (dataset_id, name) decides, so two renames to one name cannot both pass.
    if ((error as { code?: string }).code === '23505') return 'taken';
    throw error;
  }
}

export async function deleteView(db: Db, datasetId: string, viewId: string): Promise<boolean> {
  return (await db('saved_views').where({ id: viewId, dataset_id: datasetId }).delete()) === 1;
}

export async function setAlerting(db: Db, viewId: string, enabled: boolean): Promise<void> {
  await db('saved_views').where({ id: viewId }).update({ alerting_enabled: enabled });
}

export async function trendPoints(db: Db, viewId: string) {
  return db('view_trend_points').where({ view_id: viewId }).orderBy('timestamp').select('timestamp', 'batch_id', 'count', 'cumulative');
}

/** Monitored views of a dataset created before `before` (a batch is evaluated only by views older than it). */
export async function monitoredViewsBefore(db: Db, datasetId: string, before: Date): Promise<ViewRow[]> {
  return views(db).where({ 'v.dataset_id': datasetId, 'v.monitoring_enabled': true }).where('v.created_at', '<', before).orderBy('v.created_at');
}

export interface BatchMatches {
  n_images: number;
  n_video_frames: number;
  n_videos: number;
  /** Detected objects in the matching media (of the filtered labels, when labels are filtered). */
  n_objects: number;
}

/** How many images, frames, videos (with a matching frame) and objects of one batch pass every filter, optionally only among `ids`. */
export async function countBatchMatches(
  db: Db,
  options: { versionId: string; batchId: string; filters: MediaFilter[]; ids?: string[] },
): Promise<BatchMatches> {
  const query = db('media as m')
    .where({ 'm.version_id': options.versionId, 'm.batch_id': options.batchId })
    .whereIn('m.kind', ['IMAGE', 'VIDEO_FRAME']);
  for (const filter of options.filters) applyFilter(query, db, filter);
  if (options.ids) query.whereRaw('m.id = ANY(?::uuid[])', [options.ids]);
  const labels = options.filters.flatMap((filter) => (filter.kind === 'labels' ? [filter.anyOf] : []));
  const objects = db('media_objects as o').whereRaw('o.version_id = m.version_id AND o.media_id = m.id').count('*');
  for (const anyOf of labels) objects.whereIn('o.label', anyOf);
  return query
    .select(
      db.raw(`count(*) filter (where m.kind = 'IMAGE')::int as n_images`),
      db.raw(`count(*) filter (where m.kind = 'VIDEO_FRAME')::int as n_video_frames`),
      db.raw(`count(distinct m.parent_id)::int as n_videos`),
      db.raw('coalesce(sum((?)), 0)::int as n_objects', [objects]),
    )
    .first();
}

/**
 * Records one evaluation: the batch's trend point, the view's running stats and totals. False when
 * this batch was already recorded for the view (a repeated activity), so nothing is counted twice.
 */
export async function recordViewEvaluation(
  db: Db,
  view: ViewRow,
  evaluation: { batchId: string; count: number; stats: ViewRow['stats'] },
): Promise<boolean> {
  const cumulative = view.total_results + evaluation.count;
  const inserted = await db('view_trend_points')
    .insert({ view_id: view.id, batch_id: evaluation.batchId, count: evaluation.count, cumulative })
    .onConflict(['view_id', 'batch_id'])
    .ignore()
    .returning('view_id');
  if (inserted.length === 0) return false;
  await db('saved_views')
    .where({ id: view.id })
    .update({
      stats: JSON.stringify(evaluation.stats),
      total_results: cumulative,
      // When results last arrived, not when the view was last evaluated.
      ...(evaluation.count > 0 ? { last_results: db.fn.now() } : {}),
    });
  return true;
}

/** What a snapshot keeps of a saved view: its definition, not its trend (that belongs to the batches it watched). */
export interface ViewDefinition {
  id: string;
  name: string;
  filters: ViewFilters;
  alerting_enabled: boolean;
  created_by: string;
  created_at: string;
}

export async function viewDefinitions(db: Db, datasetId: string): Promise<ViewDefinition[]> {
  const rows = await db('saved_views').where({ dataset_id: datasetId }).orderBy('created_at').select('id', 'name', 'filters', 'alerting_enabled', 'created_by', 'created_at');
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
}

/**
 * Sets the dataset's views to `definitions` (a restore): views made since go with their trends,
 * views deleted since come back under their ids (monitoring from now on), the others keep theirs.
 */
export async function restoreViews(db: Db, datasetId: string, definitions: ViewDefinition[]): Promise<void> {
  await db('saved_views').where({ dataset_id: datasetId }).whereNotIn('id', definitions.map((view) => view.id)).delete();
  if (definitions.length === 0) return;
  await db('saved_views')
    .insert(definitions.map((view) => ({ ...view, dataset_id: datasetId, filters: JSON.stringify(view.filters) })))
    .onConflict('id')
    .merge(['name', 'filters', 'alerting_enabled']);
}

/** Copies view definitions into another dataset (a clone) under new ids, monitored from now on. */
export async function copyViews(db: Db, datasetId: string, definitions: ViewDefinition[]): Promise<void> {
  if (definitions.length === 0) return;
  await db('saved_views')
    .insert(definitions.map(({ name, filters, alerting_enabled, created_by }) => ({ dataset_id: datasetId, name, filters: JSON.stringify(filters), alerting_enabled, created_by })))
    .onConflict(['dataset_id', 'name'])
    .ignore();
}
