import { datasetOffers, OFFERED_OPERATIONS } from '../../lib/datasetOffers';
import { OPERATIONS } from '../../lib/datasetStates';

describe('datasetOffers', () => {
  it('offers operations of the state machine only', () => {
    for (const operation of Object.keys(OFFERED_OPERATIONS)) expect(Object.keys(OPERATIONS)).toContain(operation);
  });

  it('answers with the access policy first, then the state machine, as a refused request would', () => {
    const dataset = { id: 'd1', status: 'PARTIAL INDEX' as const };
    const viewer = datasetOffers(dataset, 'viewer');
    expect(viewer.export).toEqual({ can_start: false, refusal: 'This operation needs editor access to the dataset; you have viewer' });
    const editor = datasetOffers(dataset, 'editor');
    expect(editor.export).toEqual({ can_start: false, refusal: 'Dataset is not READY (status PARTIAL INDEX)' });
    expect(editor.reindex).toEqual({ can_start: true, refusal: null });
    expect(editor.delete).toEqual({ can_start: false, refusal: 'This operation needs owner access to the dataset; you have editor' });
    expect(datasetOffers({ id: 'd1', status: 'READY' }, 'owner').reindex.refusal).toBe('Dataset d1 is READY; reindex needs status PARTIAL INDEX');
  });
});
