import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import { requireDataset } from '../../services/datasetAccess';
import { acceptSuggestions, decideDuplicates, previewAcceptSuggestions, reviewDuplicates, undoAcceptAll, undoDecision } from '../../services/duplicates';
import { presentAcceptPreview, presentAcceptResult, presentDecisions, presentDuplicateReview } from '../presenters/duplicates';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { duplicateRoutes } from '../specs/duplicates';

/** Duplicate review: groups, decisions that stick to the version, accepting every suggestion, undo. */
export function createDuplicatesRouter(deps: { db: Db; signer: UrlSigner; publicUrl: string }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, duplicateRoutes.review, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const review = await reviewDuplicates(deps.db, dataset, { similarity: query.similarity, tiers: query.tiers, state: query.state, page: query.page_number, pageSize: query.page_size });
    ctx.body = presentDuplicateReview(review, deps.publicUrl, deps.signer, query.members_limit);
  });

  mount(router, duplicateRoutes.decide, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'review_duplicates');
    const requests = body.groups.map((group) => ({ mediaIds: group.media_ids, verdict: group.verdict, keep: group.keep_media_ids }));
    const decisions = await decideDuplicates(deps.db, dataset, ctx.state.user, requests);
    ctx.body = presentDecisions(decisions);
  });

  mount(router, duplicateRoutes.acceptSuggestions, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'review_duplicates');
    const accepted = await acceptSuggestions(deps.db, dataset, ctx.state.user, {
      similarity: body.similarity,
      tiers: body.tiers,
      previewToken: body.preview_token,
      expectedDiscardedMedia: body.expected_discarded_media,
      maxDiscardedMedia: body.max_discarded_media,
    });
    ctx.body = presentAcceptResult(accepted);
  });

  mount(router, duplicateRoutes.previewAccept, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const preview = await previewAcceptSuggestions(deps.db, dataset, { similarity: query.similarity, tiers: query.tiers, page: query.page_number, pageSize: query.page_size });
    ctx.body = presentAcceptPreview(preview, deps.publicUrl, deps.signer);
  });

  mount(router, duplicateRoutes.undoAction, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'review_duplicates');
    ctx.body = { undone_decisions: await undoAcceptAll(deps.db, dataset, params.action_id) };
  });

  mount(router, duplicateRoutes.undo, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'review_duplicates');
    await undoDecision(deps.db, dataset, params.decision_id);
    ctx.body = null;
    ctx.status = 200;
  });

  return router;
}
