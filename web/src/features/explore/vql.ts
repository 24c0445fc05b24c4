/** Explore's VQL filters as the page's controls hold them; `toVql` gives the JSON array the API takes (lib/vql/parseVql.ts). */
export const ISSUE_TYPES = ['duplicates', 'similar', 'outliers', 'blur', 'dark', 'bright', 'broken', 'mislabel', 'leakage'] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];
/** Fields of a label-quality issue's details a filter may match, each against a list of values (lib/vql/parseVql.ts). */
export const ISSUE_DETAIL_FIELDS = ['label', 'suggested_label', 'split', 'duplicate_split'] as const;
export type IssueDetails = Partial<Record<(typeof ISSUE_DETAIL_FIELDS)[number], string[]>>;

/** A region of the dataset map (a lasso): the media whose point on layout `layout_id` lies in the polygon. */
export interface MapRegion {
  layout_id: string;
  polygon: Array<[number, number]>;
}

export interface VqlControls {
  issue?: IssueType;
  /** Only the issues whose details match (the label-quality report's links set them). */
  issueDetails?: IssueDetails;
  /** Keep media whose duplicate similarity is at least this (0-1). */
  duplicates?: number;
  /** Keep media whose uniqueness score is at least this (0-1). */
  uniqueness?: number;
  /** Postgres full-text search over captions. */
  text?: string;
  /** Labels a model gave (image tagging) or propagation wrote without a label field. */
  labels?: string[];
  /** The user's own labels: the declared label field's values (GET …/classes). */
  classes?: string[];
  tags?: string[];
  map?: MapRegion;
}

type VqlElement =
  | { issues: { op: 'issue'; value: IssueType; mode: 'in'; details?: IssueDetails } }
  | { duplicates: { op: 'duplicates'; value: number } }
  | { uniqueness: { op: 'uniqueness'; value: number } }
  | { text: { op: 'fts'; value: string } }
  | { labels: { op: 'one_of'; value: string[] } }
  | { ground_truth: { op: 'one_of'; value: string[] } }
  | { tags: { op: 'is'; value: string[] } }
  | { map: { op: 'within' } & MapRegion };

export function toVql(controls: VqlControls): VqlElement[] {
  const elements: VqlElement[] = [];
  if (controls.issue) elements.push({ issues: { op: 'issue', value: controls.issue, mode: 'in', ...(controls.issueDetails && { details: controls.issueDetails }) } });
  if (controls.duplicates !== undefined) elements.push({ duplicates: { op: 'duplicates', value: controls.duplicates } });
  if (controls.uniqueness !== undefined) elements.push({ uniqueness: { op: 'uniqueness', value: controls.uniqueness } });
  if (controls.text?.trim()) elements.push({ text: { op: 'fts', value: controls.text.trim() } });
  if (controls.labels?.length) elements.push({ labels: { op: 'one_of', value: controls.labels } });
  if (controls.classes?.length) elements.push({ ground_truth: { op: 'one_of', value: controls.classes } });
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
  for (const element of elements as Partial<Record<string, { value?: unknown; details?: unknown; layout_id?: unknown; polygon?: unknown }>>[]) {
    if (element.issues && ISSUE_TYPES.includes(element.issues.value as IssueType)) {
      controls.issue = element.issues.value as IssueType;
      const details = issueDetailsOf(element.issues.details);
      if (details) controls.issueDetails = details;
    }
    if (typeof element.duplicates?.value === 'number') controls.duplicates = element.duplicates.value;
    if (typeof element.uniqueness?.value === 'number') controls.uniqueness = element.uniqueness.value;
    if (typeof element.text?.value === 'string') controls.text = element.text.value;
    if (Array.isArray(element.labels?.value)) controls.labels = element.labels.value.map(String);
    if (Array.isArray(element.ground_truth?.value)) controls.classes = element.ground_truth.value.map(String);
    if (Array.isArray(element.tags?.value)) controls.tags = element.tags.value.map(String);
    if (typeof element.map?.layout_id === 'string' && Array.isArray(element.map.polygon)) {
      controls.map = { layout_id: element.map.layout_id, polygon: element.map.polygon as MapRegion['polygon'] };
    }
  }
  return controls;
}

/** The details filter of an issues element, if it is one this page could have written. */
function issueDetailsOf(raw: unknown): IssueDetails | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const details: IssueDetails = {};
  for (const field of ISSUE_DETAIL_FIELDS) {
    const values = (raw as Record<string, unknown>)[field];
    if (Array.isArray(values) && values.length > 0) details[field] = values.map(String);
  }
  return Object.keys(details).length > 0 ? details : undefined;
}
