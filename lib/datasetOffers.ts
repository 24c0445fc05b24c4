import { roleRefusal, type DatasetAction, type DatasetRole } from './accessPolicy';
import { canStart, statusRefusal, type DatasetOperation, type DatasetStatus } from './datasetStates';

/** The operations a user starts from a dataset's pages, with the access-policy action each needs. */
export const OFFERED_OPERATIONS = {
  add_media: 'add_media',
  reindex: 'reindex',
  import_metadata: 'import_metadata',
  propagate_labels: 'label',
  edit_labels: 'label',
  check_labels: 'label',
  curate: 'tag',
  review_duplicates: 'review_duplicates',
  enrich: 'enrich',
  export: 'export',
  snapshot: 'snapshot',
  restore: 'restore',
  clone: 'clone',
  delete: 'delete',
} as const satisfies Partial<Record<DatasetOperation, DatasetAction>>;
export type OfferedOperation = keyof typeof OFFERED_OPERATIONS;

export interface Offer {
  can_start: boolean;
  /** Why not, in the words of the 403 or 409 the request would get; null when it may start. */
  refusal: string | null;
}

/**
 * Whether each offered operation may start now on a dataset in `status` for a user of `role`
 * (unknown: the status alone), as the access policy and then the state machine would answer it.
 */
export function datasetOffers(dataset: { id: string; status: DatasetStatus }, role: DatasetRole | undefined): Record<OfferedOperation, Offer> {
  const offer = (operation: OfferedOperation): Offer => {
    const action = OFFERED_OPERATIONS[operation];
    const refusal = (role && roleRefusal(role, action)) || (canStart(operation, dataset.status) ? undefined : statusRefusal(dataset.id, operation, dataset.status));
    return { can_start: refusal === undefined, refusal: refusal ?? null };
  };
  const keys = Object.keys(OFFERED_OPERATIONS) as OfferedOperation[];
  return Object.fromEntries(keys.map((operation) => [operation, offer(operation)])) as Record<OfferedOperation, Offer>;
}
