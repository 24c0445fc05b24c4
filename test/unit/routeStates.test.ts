import { API_ROUTES } from '../../api/specs';
import { OPERATIONS } from '../../lib/datasetStates';

/** The one guard a route cannot forget: every write under a dataset says what it asks of the state machine. */
describe('route specs and the dataset state machine', () => {
  const underDataset = (path: string) => path.includes(':dataset_id');

  it('has every write under a dataset declare its datasetState', () => {
    const undeclared = API_ROUTES.filter((route) => route.method !== 'get' && underDataset(route.path) && route.datasetState === undefined);
    expect(undeclared.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('names only operations of the state machine, and no guard on reads', () => {
    for (const route of API_ROUTES) {
      if (route.datasetState === undefined || route.datasetState === 'service' || route.datasetState === 'any') continue;
      expect(Object.keys(OPERATIONS)).toContain(route.datasetState);
    }
    expect(API_ROUTES.filter((route) => route.method === 'get' && route.datasetState !== undefined).map((route) => route.path)).toEqual([]);
  });
});
