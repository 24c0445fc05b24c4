import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/queries/datasets';
import { exploreClusters, type ExploreCluster, type MediaFilter, type Relevance } from '../db/queries/explore';
import { HttpError } from '../api/errors';
import type { VqlFilter } from '../lib/vql/parseVql';

export interface ExploreRequest {
  entityType: 'IMAGES' | 'OBJECTS';
  threshold: number;
  page: number;
  caption?: string;
  labels?: string[];
  tags?: string[];
  vql: VqlFilter[];
  /** Set for visual search: the media nearest to the anchor, with their distances. */
  relevance?: Relevance;
}

function compileVql(filter: VqlFilter): MediaFilter {
  switch (filter.key) {
    case 'issues':
      return { kind: 'issue', issue: filter.value };
    case 'duplicates':
      return { kind: 'duplicateSimilarity', atLeast: filter.value };
    case 'uniqueness':
      return { kind: 'uniqueness', atLeast: filter.value };
    case 'labels':
      return { kind: 'labels', anyOf: filter.value };
    case 'tags':
      return { kind: 'tags', anyOf: filter.value };
    case 'text':
      if (filter.op !== 'fts') throw new Error('semantic text filters rank results; they are not media predicates');
      return { kind: 'fullText', query: filter.value };
  }
}

/** Reads keep working while media are added (READ ONLY) and before the reindex (PARTIAL INDEX). */
const EXPLORABLE = ['READY', 'READ ONLY', 'PARTIAL INDEX'];

/** Explore: clusters of a READY dataset, filtered by every parameter and VQL element (AND). */
export async function exploreDataset(db: Db, dataset: DatasetRow, request: ExploreRequest): Promise<ExploreCluster[]> {
  if (!EXPLORABLE.includes(dataset.status_new)) throw new HttpError(409, `Dataset is not READY (status ${dataset.status_new})`);
  // Objects come with object-detection enrichment; until a dataset has them there are no object clusters.
  if (request.entityType === 'OBJECTS') return [];
  const filters: MediaFilter[] = request.vql.filter((f) => !(f.key === 'text' && f.op === 'semantic')).map(compileVql);
  if (request.caption) filters.push({ kind: 'fullText', query: request.caption });
  if (request.labels?.length) filters.push({ kind: 'labels', anyOf: request.labels });
  if (request.tags?.length) filters.push({ kind: 'tags', anyOf: request.tags });
  return exploreClusters(db, { datasetId: dataset.id, threshold: request.threshold, page: request.page, filters, relevance: request.relevance });
}
