import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import { parseVql, VqlError, type VqlFilter } from '../../lib/vql/parseVql';
import { clusterMedia, exploreDataset, exploreScope, type ExploreRequest } from '../../services/explore';
import { createExploreAnswers } from '../../services/exploreAnswers';
import { rememberQueryEmbeddings } from '../../lib/ml/rememberedQueries';
import type { TextEncoder } from '../../lib/ml/textEncoder';
import type { ClipModel } from '../../lib/ml/clip';
import type { VectorStore } from '../../lib/vectors/vectorStore';
import { requireDataset } from '../../services/datasetAccess';
import { requireStatusFor } from '../../services/datasetStates';
import { describeMedia } from '../../services/media';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { presentCluster, presentPreview } from '../presenters/cluster';
import { presentMediaFacts } from '../presenters/mediaFacts';
import { exploreRoutes } from '../specs/explore';

/** Query texts whose embeddings Explore remembers (1.5 KiB each). */
const REMEMBERED_QUERIES = 1000;
/** How much of Explore's answers the API remembers, gzip-compressed (a page is 5-130 KiB so, 20-550 KiB as JSON). */
const REMEMBERED_ANSWER_BYTES = 64 * 1024 * 1024;

export function createExploreRouter(deps: {
  db: Db;
  vectors: VectorStore;
  textEncoder: () => Promise<TextEncoder>;
  clip: () => Promise<ClipModel>;
  signer: UrlSigner;
  publicUrl: string;
}): Router<ApiState> {
  const router = new Router<ApiState>();
  const exploreDeps = { db: deps.db, vectors: deps.vectors, clip: deps.clip, textEncoder: rememberQueryEmbeddings(deps.textEncoder, REMEMBERED_QUERIES) };
  const answers = createExploreAnswers(deps.db, REMEMBERED_ANSWER_BYTES);

  mount(router, exploreRoutes.explore, async (ctx) => {
    const { params, query } = ctx.state.input;
    if (Boolean(query.anchor_media_id) !== Boolean(query.anchor_type)) {
      throw new HttpError(422, 'anchor_media_id and anchor_type go together');
    }
    let vql: VqlFilter[];
    try {
      vql = query.vql ? parseVql(query.vql) : [];
    } catch (error) {
      if (error instanceof VqlError) throw new HttpError(422, error.message);
      throw error;
    }
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const request: ExploreRequest = {
      entityType: query.entity_type,
      threshold: query.threshold,
      page: query.page_number,
      caption: query.caption ?? query.image_caption,
      textualSimilarityThreshold: query.textual_similarity_threshold,
      labels: query.labels,
      tags: query.tags,
      batchId: query.batch_id,
      vql,
      anchor: query.anchor_media_id && query.anchor_type ? { id: query.anchor_media_id, type: query.anchor_type } : undefined,
    };
    // Checked before a remembered answer is looked up too: an answer holds in every status Explore reads, so the status
    // is not in its key, and a dataset moving from READY to READ ONLY while media are added keeps its answers.
    requireStatusFor(dataset, request.anchor ? 'visual_search' : 'search');
    // The caller may read the dataset (checked above, every time); the answer is the same for every such caller.
    const key = JSON.stringify([dataset.id, dataset.head_version_id, dataset.vector_space_id, deps.signer.linkExpiry(), request]);
    const acceptsGzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    const { body, gzip, source } = await answers.answer(key, exploreScope(request), acceptsGzip, async () => {
      const { clusters, hint } = await exploreDataset(exploreDeps, dataset, request);
      return JSON.stringify({
        clusters: clusters.map((cluster) => presentCluster(cluster, query.threshold, deps.publicUrl, deps.signer)),
        metadata: { used_duckdb: false, hint },
      });
    });
    ctx.set('X-Explore-Answer', source);
    ctx.vary('Accept-Encoding');
    ctx.type = 'application/json';
    if (gzip) ctx.set('Content-Encoding', 'gzip');
    ctx.body = body;
  });

  mount(router, exploreRoutes.clusterMedia, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const page = await clusterMedia(deps.db, dataset, params.cluster_id, { number: query.page_number, size: query.page_size });
    ctx.body = {
      cluster_id: params.cluster_id,
      similarity_threshold: String(page.threshold),
      n_media: page.total,
      media: page.members.map((row) => presentPreview(row, deps.publicUrl, deps.signer)),
    };
  });

  mount(router, exploreRoutes.mediaFacts, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = presentMediaFacts(await describeMedia(deps.db, dataset, params.media_id));
  });

  return router;
}
