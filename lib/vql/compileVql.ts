import type { IssueDetailField, VqlFilter } from './parseVql';

/** A predicate on media rows, compiled from Explore parameters, VQL and saved views. */
export type MediaFilter =
  /** `details`: each named field of the issue's details is one of the values. */
  | { kind: 'issue'; issue: string; details?: Partial<Record<IssueDetailField, string[]>> }
  | { kind: 'duplicateSimilarity'; atLeast: number }
  | { kind: 'uniqueness'; atLeast: number }
  | { kind: 'labels'; anyOf: string[] }
  /** The user's own label: the value of the version's declared label field (none matches before one is declared). */
  | { kind: 'groundTruth'; anyOf: string[] }
  /** A custom-metadata field's value, as text, is one of `anyOf`. */
  | { kind: 'metadata'; field: string; anyOf: string[] }
  | { kind: 'tags'; anyOf: string[] }
  | { kind: 'fullText'; query: string }
  /** Media whose point on the map of layout `layoutId` lies in the polygon (none when the map was laid out anew). */
  | { kind: 'mapRegion'; layoutId: string; polygon: Array<[number, number]> }
  /** Media added by one batch (a saved view's notification names the batch it found new matches in). */
  | { kind: 'batch'; batchId: string };

export type SemanticFilter = Extract<VqlFilter, { key: 'text' }> & { op: 'semantic' };

export const isSemantic = (filter: VqlFilter): filter is SemanticFilter => filter.key === 'text' && filter.op === 'semantic';

/** Every VQL element but semantic text search (a vector ranking, not a row predicate) compiles to a MediaFilter. */
export function compileVql(filter: Exclude<VqlFilter, SemanticFilter>): MediaFilter {
  switch (filter.key) {
    case 'issues':
      return { kind: 'issue', issue: filter.value, ...(filter.details && { details: filter.details }) };
    case 'duplicates':
      return { kind: 'duplicateSimilarity', atLeast: filter.value };
    case 'uniqueness':
      return { kind: 'uniqueness', atLeast: filter.value };
    case 'labels':
      return { kind: 'labels', anyOf: filter.value };
    case 'ground_truth':
      return { kind: 'groundTruth', anyOf: filter.value };
    case 'metadata':
      return { kind: 'metadata', field: filter.field, anyOf: filter.value };
    case 'tags':
      return { kind: 'tags', anyOf: filter.value };
    case 'text':
      return { kind: 'fullText', query: filter.value };
    case 'map':
      return { kind: 'mapRegion', layoutId: filter.layout_id, polygon: filter.polygon };
  }
}

/** Splits a VQL query into its row predicates and its semantic text filters. */
export function splitVql(vql: VqlFilter[]): { filters: MediaFilter[]; semantic: SemanticFilter[] } {
  const semantic = vql.filter(isSemantic);
  const filters = vql.filter((filter): filter is Exclude<VqlFilter, SemanticFilter> => !isSemantic(filter)).map(compileVql);
  return { filters, semantic };
}
