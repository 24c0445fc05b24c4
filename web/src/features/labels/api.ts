import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { fetchMedia } from '../media/api';
import type { IssueDetails } from '../explore/vql';

export type LabelFields = Schemas['LabelFields'];
export type Classes = Schemas['Classes'];

export const labelKeys = {
  fields: (datasetId: string) => ['labelFields', datasetId] as const,
  report: (datasetId: string) => ['labelQuality', datasetId] as const,
  classes: (datasetId: string) => ['classes', datasetId] as const,
  flagged: (datasetId: string) => ['flagged', datasetId] as const,
  history: (datasetId: string, mediaId: string) => ['classHistory', datasetId, mediaId] as const,
};

/** What a change of classes makes stale: the counts, Explore, the viewer's facts and histories, the flagged items. */
export const CLASS_CHANGE_KEYS = ['classes', 'explore', 'media', 'classHistory', 'flagged'];

export async function fetchLabelFields(datasetId: string): Promise<LabelFields> {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/label_fields', { params: { path: { dataset_id: datasetId } } }));
}

export async function fetchLabelReport(datasetId: string) {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/label_quality', { params: { path: { dataset_id: datasetId } } }));
}
/** As the client reads it (openapi-fetch reads the schema's split pairs as arrays). */
export type LabelQualityReport = Awaited<ReturnType<typeof fetchLabelReport>>;

export async function declareLabelFields(datasetId: string, labelField: string, splitField: string | null): Promise<string> {
  const body = { label_field: labelField, split_field: splitField };
  return unwrap(await api.PUT('/api/v1/dataset/{dataset_id}/label_fields', { params: { path: { dataset_id: datasetId } }, body })).task_id;
}

/** Explore showing the media with one label-quality issue whose details match. */
export function issueExploreUrl(datasetId: string, issue: 'mislabel' | 'leakage', details: IssueDetails): string {
  const vql = [{ issues: { op: 'issue', value: issue, mode: 'in', details } }];
  return `/datasets/${datasetId}/explore?${new URLSearchParams({ vql: JSON.stringify(vql) })}`;
}

/** Explore showing the images of some classes (the user's labels). */
export function classExploreUrl(datasetId: string, classes: string[]): string {
  const vql = [{ ground_truth: { op: 'one_of', value: classes } }];
  return `/datasets/${datasetId}/explore?${new URLSearchParams({ vql: JSON.stringify(vql) })}`;
}

export async function fetchClasses(datasetId: string): Promise<Classes> {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/classes', { params: { path: { dataset_id: datasetId } } }));
}

type MediaSelection = Schemas['MediaSelection'];

/** Gives the selection a class (null takes it off); the answer names the action, which undo reverts. */
export async function setClass(datasetId: string, selection: MediaSelection, label: string | null) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/classes/set', { params: { path: { dataset_id: datasetId } }, body: { selection, label } }));
}

/** Gives the flagged items at or above `minScore` the class the label check suggested. */
export async function acceptSuggestions(datasetId: string, minScore: number) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/classes/accept_suggestions', { params: { path: { dataset_id: datasetId } }, body: { min_score: minScore } }));
}

/** Reverts the dataset's latest change of classes not undone yet (whoever made it). */
export async function undoClassChange(datasetId: string) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/classes/undo', { params: { path: { dataset_id: datasetId } } }));
}

export async function fetchClassHistory(datasetId: string, mediaId: string) {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/media/{media_id}/class_history', { params: { path: { dataset_id: datasetId, media_id: mediaId } } })).changes;
}

/** Flagged items whose scores the page reads at most (one request each): the API gives no count per score. */
export const FLAGGED_READ = 300;
const MISLABEL_VQL = JSON.stringify([{ issues: { op: 'issue', value: 'mislabel', mode: 'in' } }]);

/**
 * The items the label check flagged now (issue mislabel, read through Explore's issue filter) and the
 * scores of up to FLAGGED_READ of them (from their facts), so the page can say how many a score takes in.
 */
export async function fetchFlagged(datasetId: string): Promise<{ total: number; scores: number[] }> {
  const path = { dataset_id: datasetId };
  const ids: string[] = [];
  let total = 0;
  for (let page = 0; ; page++) {
    const query = { entity_type: 'IMAGES' as const, threshold: 0, page_number: page, vql: MISLABEL_VQL };
    const { clusters } = unwrap(await api.GET('/api/v1/explore/{dataset_id}', { params: { path, query } }));
    for (const cluster of clusters) {
      total += cluster.n_images;
      ids.push(...cluster.previews.map((preview) => preview.media_id));
    }
    if (clusters.length < 100) break;
  }
  const scores: number[] = [];
  const toRead = ids.slice(0, FLAGGED_READ);
  for (let start = 0; start < toRead.length; start += 8) {
    const facts = await Promise.all(
      toRead.slice(start, start + 8).map((mediaId) => fetchMedia(datasetId, mediaId)),
    );
    for (const fact of facts) if (fact.mislabel) scores.push(fact.mislabel.score);
  }
  return { total, scores };
}

export const labelQueries = {
  fields: (datasetId: string) => queryOptions({ queryKey: labelKeys.fields(datasetId), queryFn: () => fetchLabelFields(datasetId) }),
  report: (datasetId: string) => queryOptions({ queryKey: labelKeys.report(datasetId), queryFn: () => fetchLabelReport(datasetId) }),
  classes: (datasetId: string) => queryOptions({ queryKey: labelKeys.classes(datasetId), queryFn: () => fetchClasses(datasetId) }),
  flagged: (datasetId: string) => queryOptions({ queryKey: labelKeys.flagged(datasetId), queryFn: () => fetchFlagged(datasetId) }),
  history: (datasetId: string, mediaId: string) => queryOptions({ queryKey: labelKeys.history(datasetId, mediaId), queryFn: () => fetchClassHistory(datasetId, mediaId) }),
};
