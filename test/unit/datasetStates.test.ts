import {
  abortRefusal,
  batchFailedEmpty,
  canStart,
  claimTransition,
  DATASET_STATUSES,
  OPERATIONS,
  releaseTransition,
  retryRefusal,
  statusRefusal,
  TASK_RULES,
  TASK_TYPES,
  TRANSITIONS,
} from '../../lib/datasetStates';

describe('dataset state machine', () => {
  it('lets add_media start from READY or PARTIAL INDEX only, claiming READ ONLY', () => {
    const allowed = DATASET_STATUSES.filter((status) => canStart('add_media', status));
    expect(allowed).toEqual(['READY', 'PARTIAL INDEX']);
    expect(claimTransition('add_media')).toEqual({ from: ['READY', 'PARTIAL INDEX'], to: 'READ ONLY' });
  });

  it('lets reindex start from PARTIAL INDEX only and process_files from UPLOADING only', () => {
    expect(DATASET_STATUSES.filter((status) => canStart('reindex', status))).toEqual(['PARTIAL INDEX']);
    expect(DATASET_STATUSES.filter((status) => canStart('process_files', status))).toEqual(['UPLOADING']);
    expect(claimTransition('process_files').to).toBe('INDEXING');
  });

  it('keeps searches open while media are added and before a reindex, but not while indexing', () => {
    for (const operation of ['search', 'visual_search'] as const) {
      expect(DATASET_STATUSES.filter((status) => canStart(operation, status))).toEqual(['READY', 'READ ONLY', 'PARTIAL INDEX']);
    }
  });

  it('releases a claim back to the status it came from', () => {
    expect(releaseTransition('add_media', 'PARTIAL INDEX')).toEqual({ from: ['READ ONLY'], to: 'PARTIAL INDEX' });
    expect(() => claimTransition('search')).toThrow('search claims no status');
  });

  it('never leaves a dataset in a transitional status after a batch fails', () => {
    const transitional = ['READ ONLY', 'INDEXING', 'UPLOADING'];
    expect(transitional).not.toContain(TRANSITIONS.batchFailedWithMedia.to);
    expect(transitional).not.toContain(TRANSITIONS.creationFailed.to);
    expect(batchFailedEmpty('READY')).toEqual({ from: ['READ ONLY', 'INDEXING'], to: 'READY' });
  });

  it('moves every claimed status on by some transition', () => {
    const claimed = Object.values(OPERATIONS).flatMap((rule) => (rule.claims ? [rule.claims] : []));
    const leavable = new Set<string>(Object.values(TRANSITIONS).flatMap((transition) => transition.from));
    for (const status of claimed) expect(leavable.has(status)).toBe(true);
  });

  it('names the operation and the statuses it needs when it refuses', () => {
    expect(statusRefusal('d1', 'add_media', 'INDEXING')).toBe('Dataset d1 is INDEXING; add_media needs status READY or PARTIAL INDEX');
    expect(statusRefusal('d1', 'search', 'UPLOADING')).toBe('Dataset is not READY (status UPLOADING)');
  });
});

describe('task rules', () => {
  it('aborts only running dataset creations outside their commit phase', () => {
    expect(abortRefusal({ task_type: 'DATASET_CREATION', status: 'RUNNING', phase: 'indexing' })).toBeUndefined();
    expect(abortRefusal({ task_type: 'DATASET_CREATION', status: 'INITIALIZING' })).toBeUndefined();
    expect(abortRefusal({ task_type: 'DATASET_CREATION', status: 'RUNNING', phase: 'commit' })).toMatch(/commit phase/);
    expect(abortRefusal({ task_type: 'DATASET_CREATION', status: 'COMPLETED' })).toBe('Task is COMPLETED and cannot be aborted');
    // The spec: "Abort of ... a non-creation task: 409".
    expect(TASK_TYPES.filter((t) => TASK_RULES[t].abortable)).toEqual(['DATASET_CREATION']);
    for (const type of TASK_TYPES.filter((t) => t !== 'DATASET_CREATION')) {
      expect(abortRefusal({ task_type: type, status: 'RUNNING' })).toBe(`Only DATASET_CREATION tasks can be aborted (this is ${type})`);
      expect(abortRefusal({ task_type: type, status: 'INITIALIZING' })).toBe(`Only DATASET_CREATION tasks can be aborted (this is ${type})`);
    }
  });

  it('never aborts or retries an export', () => {
    expect(abortRefusal({ task_type: 'EXPORT', status: 'RUNNING', phase: 'packaging' })).toBe('Only DATASET_CREATION tasks can be aborted (this is EXPORT)');
    expect(retryRefusal({ task_type: 'EXPORT', status: 'FAILED' })).toBe('Only DATASET_CREATION tasks can be retried (this is EXPORT)');
  });

  it('lets an export start from READY only, claiming nothing', () => {
    expect(DATASET_STATUSES.filter((status) => canStart('export', status))).toEqual(['READY']);
    expect(OPERATIONS.export).toEqual({ from: ['READY'], task: 'EXPORT' });
    expect(() => claimTransition('export')).toThrow('export claims no status');
  });

  it('retries only failed or aborted dataset creations', () => {
    expect(retryRefusal({ task_type: 'DATASET_CREATION', status: 'FAILED' })).toBeUndefined();
    expect(retryRefusal({ task_type: 'DATASET_CREATION', status: 'ABORTED' })).toBeUndefined();
    expect(retryRefusal({ task_type: 'DATASET_CREATION', status: 'COMPLETED' })).toBe(
      'Task is COMPLETED; only FAILED or ABORTED tasks can be retried',
    );
    expect(retryRefusal({ task_type: 'MEDIA_ADDITION', status: 'FAILED' })).toMatch(/Only DATASET_CREATION/);
  });
});
