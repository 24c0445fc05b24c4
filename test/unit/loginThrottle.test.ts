import { createLoginThrottle, type LoginThrottleSettings } from '../../lib/auth/loginThrottle';

const settings: LoginThrottleSettings = { maxFailuresPerAccount: 3, maxFailuresPerIp: 5, windowMs: 60_000, lockoutMs: 10_000 };

/** A throttle on a clock the test moves by hand. */
function throttleAt(start = 1_000_000) {
  const clock = { now: start };
  const throttle = createLoginThrottle(settings, () => clock.now);
  const fail = (account: string, ip = '10.0.0.1') => {
    const attempt = throttle.begin({ account, ip });
    if ('retryAfterSeconds' in attempt) throw new Error(`locked for ${attempt.retryAfterSeconds} s`);
  };
  const lockedFor = (account: string, ip = '10.0.0.1') => {
    const attempt = throttle.begin({ account, ip });
    return 'retryAfterSeconds' in attempt ? attempt.retryAfterSeconds : 0;
  };
  return { clock, throttle, fail, lockedFor };
}

describe('createLoginThrottle', () => {
  it('locks an account out after its failures in the window, and lets it in again after the lock-out', () => {
    const { clock, fail, lockedFor } = throttleAt();
    for (let i = 0; i < 3; i++) fail('alice@example.com');
    expect(lockedFor('alice@example.com', '10.9.9.9')).toBe(10);
    clock.now += 10_001;
    expect(lockedFor('alice@example.com')).toBe(0);
  });

  it('doubles a repeated lock-out and forgives after a quiet window', () => {
    const { clock, fail, lockedFor } = throttleAt();
    for (let i = 0; i < 3; i++) fail('bob@example.com', `10.0.0.${i}`);
    clock.now += 10_001;
    for (let i = 0; i < 3; i++) fail('bob@example.com', `10.0.1.${i}`);
    expect(lockedFor('bob@example.com', '10.0.2.1')).toBe(20);
    clock.now += 20_001 + settings.windowMs + 1;
    for (let i = 0; i < 3; i++) fail('bob@example.com', `10.0.3.${i}`);
    expect(lockedFor('bob@example.com', '10.0.4.1')).toBe(10);
  });

  it('locks an address out after failures spread over many accounts', () => {
    const { fail, lockedFor } = throttleAt();
    for (let i = 0; i < 5; i++) fail(`user${i}@example.com`, '192.0.2.7');
    expect(lockedFor('someone-else@example.com', '192.0.2.7')).toBe(10);
    expect(lockedFor('someone-else@example.com', '192.0.2.8')).toBe(0);
  });

  it('counts an attempt from its start, so parallel guesses cannot all pass, and takes a success back', () => {
    const { throttle, lockedFor } = throttleAt();
    const inFlight = [1, 2, 3].map(() => throttle.begin({ account: 'carol@example.com', ip: '10.0.0.1' }));
    expect(inFlight.every((attempt) => !('retryAfterSeconds' in attempt))).toBe(true);
    expect(lockedFor('carol@example.com')).toBe(10);

    const fresh = throttleAt();
    const first = fresh.throttle.begin({ account: 'dave@example.com', ip: '10.0.0.1' });
    fresh.fail('dave@example.com');
    if (!('succeeded' in first)) throw new Error('expected an attempt');
    first.succeeded();
    fresh.fail('dave@example.com');
    fresh.fail('dave@example.com');
    expect(fresh.lockedFor('dave@example.com')).toBe(0);
  });
});
