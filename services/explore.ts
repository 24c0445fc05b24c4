import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import type { ExploreScope } from '../db/repositories/exploreChanges';
import { clusterMembersPage, exploreClusters, exploreObjectClusters, type ExploreCluster, type PreviewRow, type Relevance } from '../db/repositories/explore';
import { hasCaptions } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { notFound, unprocessable } from '../lib/errors';
import type { ClipModel } from '../lib/ml/clip';
import type { TextEncoder } from '../lib/ml/textEncoder';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { splitVql, type MediaFilter } from '../lib/vql/compileVql';
import type { VqlFilter } from '../lib/vql/parseVql';
import { requireCurrentMapLayout } from './map';
import { semanticRelevance } from './semanticSearch';
import { visualRelevance } from './visualSearch';

export interface ExploreRequest {
  entityType: 'IMAGES' | 'OBJECTS';
  threshold: number;
  page: number;
  /** Natural-language search over captions (semantic, cosine distance). */
  caption?: string;
  textualSimilarityThreshold?: number;
  labels?: string[];
  tags?: string[];
  /** Only the media this batch added (a view's notification opens Explore on its batch). */
  batchId?: string;
  vql: VqlFilter[];
  anchor?: { id: string; type: 'UPLOAD' | 'MEDIA' };
}

export interface ExploreDeps {
  db: Db;
  vectors: VectorStore;
  textEncoder: () => Promise<TextEncoder>;
  clip: () => Promise<ClipModel>;
}

/**
 * The ranking of a search, if any: a visual anchor, the `caption` query, or one VQL semantic
 * filter; they cannot be combined (422).
 */
async function ranking(deps: ExploreDeps, dataset: DatasetRow, request: ExploreRequest): Promise<Relevance | undefined> {
  const { semantic } = splitVql(request.vql);
  const rankings = semantic.length + (request.anchor ? 1 : 0) + (request.caption ? 1 : 0);
  if (rankings > 1) throw unprocessable('Use at most one ranking: a visual anchor, caption, or one semantic text filter');
  if (request.anchor) return visualRelevance(deps, dataset, { anchor: request.anchor, entityType: request.entityType, threshold: request.threshold });
  const text = request.caption ?? semantic[0]?.value;
  if (text === undefined) return undefined;
  return semanticRelevance(deps, dataset, text, semantic[0]?.threshold ?? request.textualSimilarityThreshold);
}

export interface ExploreResult {
  clusters: ExploreCluster[];
  /** Why a text search found nothing, when the dataset has nothing text search reads; null otherwise. */
  hint: string | null;
}

export const NOTHING_TO_SEARCH_BY_TEXT =
  'This dataset has no captions and no concept vectors, which text search reads: enrich a copy with a captioning or multimodal model, or import captions as custom metadata.';

/** Whether text search has nothing to read in the dataset: no caption and no multimodal encoding. */
async function nothingToSearchByText(db: Db, dataset: DatasetRow): Promise<boolean> {
  const version = await headVersion(db, dataset.id);
  return !version.enrichment_models.MULTIMODEL_IMAGE_ENCODING && !(await hasCaptions(db, version.id));
}

/**
 * Which writes can change the answer to `request` (db/repositories/exploreChanges.ts): an image page without ranking
 * reads clustered media only; a ranked one reads vector searches, whose nearest hits media not clustered yet can join.
 */
export function exploreScope(request: ExploreRequest): ExploreScope {
  const ranked = request.anchor !== undefined || request.caption !== undefined || splitVql(request.vql).semantic.length > 0;
  return request.entityType === 'IMAGES' && !ranked ? 'clustered' : 'every';
}

/**
 * Explore: clusters of a dataset, filtered by every parameter and VQL element (AND), optionally ranked. The caller has
 * checked that the dataset's status may be searched: the route does, before it looks up a remembered answer.
 */
export async function exploreDataset(deps: ExploreDeps, dataset: DatasetRow, request: ExploreRequest): Promise<ExploreResult> {
  const vql = splitVql(request.vql);
  const filters: MediaFilter[] = vql.filters;
  if (request.labels?.length) filters.push({ kind: 'labels', anyOf: request.labels });
  if (request.tags?.length) filters.push({ kind: 'tags', anyOf: request.tags });
  if (request.batchId) filters.push({ kind: 'batch', batchId: request.batchId });
  await requireCurrentMapLayout(deps.db, dataset, filters);
  const relevance = await ranking(deps, dataset, request);
  const options = { versionId: dataset.head_version_id, threshold: request.threshold, page: request.page, filters, relevance };
  // Objects come with OBJECT_DETECTION enrichment; a dataset without it has no object clusters.
  const clusters = await (request.entityType === 'OBJECTS' ? exploreObjectClusters(deps.db, options) : exploreClusters(deps.db, options));
  const textSearch = request.caption !== undefined || vql.semantic.length > 0;
  const hint = textSearch && clusters.length === 0 && (await nothingToSearchByText(deps.db, dataset)) ? NOTHING_TO_SEARCH_BY_TEXT : null;
  return { clusters, hint };
}

/** A page of an image cluster's members in the dataset's head version (Explore's previews are its first few). */
export async function clusterMedia(
  db: Db,
  dataset: DatasetRow,
  clusterId: string,
  page: { number: number; size: number },
): Promise<{ threshold: number; total: number; members: PreviewRow[] }> {
  const found = await clusterMembersPage(db, dataset.head_version_id, clusterId, { offset: page.number * page.size, limit: page.size });
  if (!found) throw notFound('Cluster not found');
  return found;
}
