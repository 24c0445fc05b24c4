import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

export type AcceptPreview = Schemas['DuplicateAcceptPreview'];
export type MergeConflict = Schemas['DuplicateMergeConflict'];
export type DuplicateGroup = Schemas['DuplicateGroup'];
export type DuplicateMember = DuplicateGroup['members'][number];
export type DuplicatePair = Schemas['DuplicatePair'];
export type Tier = DuplicatePair['tier'];
export type ReviewState = 'open' | 'decided' | 'all';
export type Verdict = 'duplicates' | 'not_duplicates';

/** What a page of the review asks for; also its query key. */
export interface ReviewQuery {
  similarity: number;
  tiers: readonly Tier[];
  state: ReviewState;
  page: number;
  pageSize: number;
}

export const duplicateKeys = {
  all: (datasetId: string) => ['duplicates', datasetId] as const,
  review: (datasetId: string, query: ReviewQuery) => ['duplicates', datasetId, 'review', query] as const,
  preview: (datasetId: string, similarity: number, tiers: readonly Tier[], page: number) => ['duplicates', datasetId, 'preview', similarity, tiers, page] as const,
};

export async function fetchDuplicateGroups(datasetId: string, query: ReviewQuery) {
  return unwrap(
    await api.GET('/api/v1/dataset/{dataset_id}/duplicates', {
      params: {
        path: { dataset_id: datasetId },
        query: { similarity: query.similarity, tiers: query.tiers.join(','), state: query.state, page_number: query.page, page_size: query.pageSize },
      },
    }),
  );
}

/** One group's decision: its members, the verdict, and for duplicates the copies kept (the rest are discarded). */
export async function decideGroup(datasetId: string, group: DuplicateGroup, verdict: Verdict, keepMediaIds: string[]) {
  return unwrap(
    await api.POST('/api/v1/dataset/{dataset_id}/duplicates/decisions', {
      params: { path: { dataset_id: datasetId } },
      body: {
        groups: [
          {
            media_ids: group.members.map((member) => member.media_id),
            verdict,
            ...(verdict === 'duplicates' ? { keep_media_ids: keepMediaIds } : {}),
          },
        ],
      },
    }),
  );
}

export async function undoDecision(datasetId: string, decisionId: string) {
  return unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/duplicates/decisions/{decision_id}', { params: { path: { dataset_id: datasetId, decision_id: decisionId } } }));
}

export async function fetchAcceptPreview(datasetId: string, similarity: number, tiers: readonly Tier[], page: number, pageSize: number): Promise<AcceptPreview> {
  return unwrap(
    await api.GET('/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions/preview', {
      params: { path: { dataset_id: datasetId }, query: { similarity, tiers: tiers.join(','), page_number: page, page_size: pageSize } },
    }),
  );
}

/** Accept all held to the preview the curator saw: refused (409) if the groups changed since. */
export async function acceptAll(datasetId: string, similarity: number, tiers: readonly Tier[], preview: AcceptPreview) {
  return unwrap(
    await api.POST('/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions', {
      params: { path: { dataset_id: datasetId } },
      body: { similarity, tiers: [...tiers], preview_token: preview.preview_token, expected_discarded_media: preview.discarded_media },
    }),
  );
}
export type AcceptResult = Awaited<ReturnType<typeof acceptAll>>;

export async function undoAcceptAll(datasetId: string, actionId: string) {
  return unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/duplicates/actions/{action_id}', { params: { path: { dataset_id: datasetId, action_id: actionId } } }));
}

export const duplicateQueries = {
  /** A page of duplicate groups to review. */
  review: (datasetId: string, query: ReviewQuery) => queryOptions({ queryKey: duplicateKeys.review(datasetId, query), queryFn: () => fetchDuplicateGroups(datasetId, query) }),
  /** A page of what Accept all would keep and discard. */
  preview: (datasetId: string, similarity: number, tiers: readonly Tier[], page: number, pageSize: number) =>
    queryOptions({ queryKey: duplicateKeys.preview(datasetId, similarity, tiers, page), queryFn: () => fetchAcceptPreview(datasetId, similarity, tiers, page, pageSize) }),
};
