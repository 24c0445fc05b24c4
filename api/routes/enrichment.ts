import { Router } from '@koa/router';
import { requireDataset } from '../../services/datasetAccess';
import { enrichmentContext, listEnrichmentModels, startEnrichment, type EnrichmentDeps } from '../../services/enrichment';
import { mount } from '../routeSpec';
import { enrichmentRoutes } from '../specs/enrichment';
import type { ApiState } from '../state';

/** Enrichment: which models this installation runs, what a dataset has had, and new enriched copies. */
export function createEnrichmentRouter(deps: EnrichmentDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, enrichmentRoutes.listModels, async (ctx) => {
    await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = listEnrichmentModels(deps);
  });

  mount(router, enrichmentRoutes.context, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = await enrichmentContext(deps, dataset);
  });

  mount(router, enrichmentRoutes.enrich, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'enrich');
    ctx.body = { dataset_id: await startEnrichment(deps, dataset, ctx.state.user, body.enrichment_models) };
  });

  return router;
}
