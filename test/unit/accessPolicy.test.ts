import { allows, DATASET_ROLES, LEAST_ROLE, type DatasetAction } from '../../lib/accessPolicy';

const actions = Object.keys(LEAST_ROLE) as DatasetAction[];

describe('access policy', () => {
  it('lets viewers read and nothing else', () => {
    expect(actions.filter((action) => allows('viewer', action))).toEqual(['read']);
  });

  it('lets editors change data but not restore over it, share it or delete it', () => {
    const denied = actions.filter((action) => !allows('editor', action));
    expect(denied.sort()).toEqual(['delete', 'restore', 'share']);
  });

  it('lets owners do everything, and a higher role everything a lower one may', () => {
    expect(actions.every((action) => allows('owner', action))).toBe(true);
    for (const action of actions) {
      const permitted = DATASET_ROLES.map((role) => allows(role, action));
      expect(permitted).toEqual([...permitted].sort());
    }
  });
});
