/**
 * The one access policy: the least dataset-level role each dataset operation needs. Routes and
 * services ask `allows`; docs/access.md is its readable copy. Workspace admins act as editors.
 */

export const DATASET_ROLES = ['viewer', 'editor', 'owner'] as const;
export type DatasetRole = (typeof DATASET_ROLES)[number];
/** The roles an invitation may grant: a dataset keeps its one owner (docs/decisions.md). */
export const GRANTABLE_ROLES = ['viewer', 'editor'] as const satisfies readonly DatasetRole[];

export type DatasetAction =
  | 'read' // dataset record, tasks list, tags list, views list and trends, explore, visual search, media links, duplicate groups, the map, the label fields and label-quality report
  | 'upload' // dataset creation uploads and process_files
  | 'rename' // rename the dataset
  | 'delete' // delete the dataset (its storage is released)
  | 'add_media'
  | 'reindex'
  | 'import_metadata'
  | 'tag' // create, delete, apply and remove tags
  | 'label' // label media, propagate labels to their neighbours, declare the label and split fields
  | 'review_duplicates' // decide duplicate groups, accept suggestions, undo decisions
  | 'manage_views' // create, rename and delete saved views, toggle alerting
  | 'manage_tasks' // abort and retry
  | 'enrich'
  | 'export'
  | 'snapshot' // create, rename, delete snapshots
  | 'restore' // restore a snapshot over the dataset
  | 'clone' // clone a snapshot into a new dataset
  | 'share'; // invite members, list members

export const LEAST_ROLE: Record<DatasetAction, DatasetRole> = {
  read: 'viewer',
  upload: 'editor',
  rename: 'editor',
  delete: 'owner',
  add_media: 'editor',
  reindex: 'editor',
  import_metadata: 'editor',
  tag: 'editor',
  label: 'editor',
  review_duplicates: 'editor',
  manage_views: 'editor',
  manage_tasks: 'editor',
  enrich: 'editor',
  export: 'editor',
  clone: 'editor',
  snapshot: 'editor',
  restore: 'owner',
  share: 'owner',
};

const RANK: Record<DatasetRole, number> = { viewer: 0, editor: 1, owner: 2 };

export function allows(role: DatasetRole, action: DatasetAction): boolean {
  return RANK[role] >= RANK[LEAST_ROLE[action]];
}

/** Why `role` may not do `action`, as the 403 says; undefined when it may. */
export function roleRefusal(role: DatasetRole, action: DatasetAction): string | undefined {
  return allows(role, action) ? undefined : `This operation needs ${LEAST_ROLE[action]} access to the dataset; you have ${role}`;
}
