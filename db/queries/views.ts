import type { Db } from '../connection';

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

export async function deleteView(db: Db, datasetId: string, viewId: string): Promise<boolean> {
  return (await db('saved_views').where({ id: viewId, dataset_id: datasetId }).delete()) === 1;
}

export async function setAlerting(db: Db, viewId: string, enabled: boolean): Promise<void> {
  await db('saved_views').where({ id: viewId }).update({ alerting_enabled: enabled });
}

export async function trendPoints(db: Db, viewId: string) {
  return db('view_trend_points').where({ view_id: viewId }).orderBy('timestamp').select('timestamp', 'batch_id', 'count', 'cumulative');
}
