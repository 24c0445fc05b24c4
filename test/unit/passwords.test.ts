import { dummyPasswordHash, hashPassword, verifyPassword } from '../../lib/auth/passwords';

/** `argon2id$v=19$m=…,t=…,p=…`: what decides how long a verification takes. */
const costOf = (hash: string) => hash.split('$').slice(1, 4).join('$');

describe('verifyPassword', () => {
  afterEach(() => jest.restoreAllMocks());

  it('accepts the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('correct horse');
    await expect(verifyPassword(hash, 'correct horse')).resolves.toBe(true);
    await expect(verifyPassword(hash, 'wrong horse')).resolves.toBe(false);
  });

  it('runs a full verification against a dummy hash of the same cost for an account without one (unknown email)', async () => {
    expect(costOf(await dummyPasswordHash())).toBe(costOf(await hashPassword('x')));
    // The module object itself: an `import * as` namespace is a copy that spying would not reach.
    const verify = jest.spyOn(jest.requireActual<typeof import('@node-rs/argon2')>('@node-rs/argon2'), 'verify');
    await expect(verifyPassword(null, 'any password')).resolves.toBe(false);
    expect(verify).toHaveBeenCalledWith(await dummyPasswordHash(), 'any password');
  });
});
