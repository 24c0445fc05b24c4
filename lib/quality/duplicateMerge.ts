/**
 * What a keeper gains when its duplicate group is resolved: the union of the discarded copies' labels, tags and
 * custom metadata it lacks. A value that disagrees (the keeper's own, or two discarded copies') is never chosen
 * here: the keeper keeps its own (or stays without) and the conflict is listed for the curator. Pure.
 */

export interface LabelFact {
  label: string;
  source: string;
  confidence: number | null;
}

/** What a member of a group carries that a merge moves. */
export interface MemberFacts {
  id: string;
  labels: LabelFact[];
  tagIds: string[];
  metadata: Record<string, unknown>;
}

export interface MergeConflict {
  keeperId: string;
  field: string;
  /** class: the declared label field; metadata: any other custom metadata field. */
  kind: 'class' | 'metadata';
  /** The keeper's value, which stays; null when it has none (the discarded copies disagree among themselves). */
  kept: unknown;
  discarded: Array<{ mediaId: string; value: unknown }>;
}

export interface KeeperMerge {
  keeperId: string;
  labels: LabelFact[];
  tagIds: string[];
  metadata: Record<string, unknown>;
  conflicts: MergeConflict[];
}

/** A JSON value with its object keys sorted, so equal values compare equal as text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Classes are read trimmed (as Explore and the exports read them); other fields as JSON values. */
const sameValue = (field: string, labelField: string | null) => (a: unknown, b: unknown) =>
  field === labelField && typeof a !== 'object' && typeof b !== 'object' ? String(a).trim() === String(b).trim() : canonical(a) === canonical(b);

export function mergeIntoKeeper(keeper: MemberFacts, discarded: MemberFacts[], labelField: string | null): KeeperMerge {
  const ownLabels = new Set(keeper.labels.map((fact) => fact.label));
  const labels = new Map<string, LabelFact>();
  for (const fact of discarded.flatMap((member) => member.labels)) {
    if (ownLabels.has(fact.label)) continue;
    const earlier = labels.get(fact.label);
    if (!earlier || (fact.confidence ?? 0) > (earlier.confidence ?? 0)) labels.set(fact.label, fact);
  }
  const ownTags = new Set(keeper.tagIds);
  const tagIds = [...new Set(discarded.flatMap((member) => member.tagIds))].filter((tagId) => !ownTags.has(tagId)).sort();

  const metadata: Record<string, unknown> = {};
  const conflicts: MergeConflict[] = [];
  const fields = [...new Set(discarded.flatMap((member) => Object.keys(member.metadata)))].sort();
  for (const field of fields) {
    const same = sameValue(field, labelField);
    const values = discarded.filter((member) => field in member.metadata).map((member) => ({ mediaId: member.id, value: member.metadata[field] }));
    const kind = field === labelField ? 'class' : 'metadata';
    if (field in keeper.metadata) {
      const kept = keeper.metadata[field];
      const differing = values.filter((entry) => !same(entry.value, kept));
      if (differing.length > 0) conflicts.push({ keeperId: keeper.id, field, kind, kept, discarded: differing });
    } else if (values.every((entry) => same(entry.value, values[0].value))) {
      metadata[field] = values[0].value;
    } else {
      conflicts.push({ keeperId: keeper.id, field, kind, kept: null, discarded: values });
    }
  }
  return { keeperId: keeper.id, labels: [...labels.values()].sort((a, b) => a.label.localeCompare(b.label)), tagIds, metadata, conflicts };
}
