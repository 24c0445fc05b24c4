import { api, unwrap, type Schemas } from '../../api/client';
import type { IssueDetails } from '../../api/vql';

export type LabelFields = Schemas['LabelFields'];

export const labelKeys = {
  fields: (datasetId: string) => ['labelFields', datasetId] as const,
  report: (datasetId: string) => ['labelQuality', datasetId] as const,
};

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
