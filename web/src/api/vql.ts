/** Explore's VQL filters as the page's controls hold them; `toVql` gives the JSON array the API takes (lib/vql/parseVql.ts). */
export const ISSUE_TYPES = ['duplicates', 'outliers', 'blur', 'dark', 'bright', 'broken', 'mislabel', 'leakage'] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];

/** A region of the dataset map (a lasso): the media whose point on layout `layout_id` lies in the polygon. */
export interface MapRegion {
  layout_id: string;
  polygon: Array<[number, number]>;
}

export interface VqlControls {
  issue?: IssueType;
  /** Keep media whose duplicate similarity is at least this (0-1). */
  duplicates?: number;
  /** Keep media whose uniqueness score is at least this (0-1). */
  uniqueness?: number;
  /** Postgres full-text search over captions. */
  text?: string;
  labels?: string[];
  tags?: string[];
  map?: MapRegion;
}

type VqlElement =
  | { issues: { op: 'issue'; value: IssueType; mode: 'in' } }
  | { duplicates: { op: 'duplicates'; value: number } }
  | { uniqueness: { op: 'uniqueness'; value: number } }
  | { text: { op: 'fts'; value: string } }
  | { labels: { op: 'one_of'; value: string[] } }
  | { tags: { op: 'is'; value: string[] } }
  | { map: { op: 'within' } & MapRegion };

export function toVql(controls: VqlControls): VqlElement[] {
  const elements: VqlElement[] = [];
  if (controls.issue) elements.push({ issues: { op: 'issue', value: controls.issue, mode: 'in' } });
  if (controls.duplicates !== undefined) elements.push({ duplicates: { op: 'duplicates', value: controls.duplicates } });
  if (controls.uniqueness !== undefined) elements.push({ uniqueness: { op: 'uniqueness', value: controls.uniqueness } });
  if (controls.text?.trim()) elements.push({ text: { op: 'fts', value: controls.text.trim() } });
  if (controls.labels?.length) elements.push({ labels: { op: 'one_of', value: controls.labels } });
  if (controls.tags?.length) elements.push({ tags: { op: 'is', value: controls.tags } });
  if (controls.map) elements.push({ map: { op: 'within', ...controls.map } });
  return elements;
}

/** The controls of a `vql` URL parameter this page wrote; anything else reads as no filter. */
export function fromVql(raw: string | null): VqlControls {
  if (!raw) return {};
  let elements: unknown;
  try {
    elements = JSON.parse(raw);
  } catch {
    return {};
  }
  if (!Array.isArray(elements)) return {};
  const controls: VqlControls = {};
  for (const element of elements as Partial<Record<string, { value?: unknown; layout_id?: unknown; polygon?: unknown }>>[]) {
    if (element.issues && ISSUE_TYPES.includes(element.issues.value as IssueType)) controls.issue = element.issues.value as IssueType;
    if (typeof element.duplicates?.value === 'number') controls.duplicates = element.duplicates.value;
    if (typeof element.uniqueness?.value === 'number') controls.uniqueness = element.uniqueness.value;
    if (typeof element.text?.value === 'string') controls.text = element.text.value;
    if (Array.isArray(element.labels?.value)) controls.labels = element.labels.value.map(String);
    if (Array.isArray(element.tags?.value)) controls.tags = element.tags.value.map(String);
    if (typeof element.map?.layout_id === 'string' && Array.isArray(element.map.polygon)) {
      controls.map = { layout_id: element.map.layout_id, polygon: element.map.polygon as MapRegion['polygon'] };
    }
  }
  return controls;
}
