export interface LoginThrottleSettings {
  /** Failed logins of one account within `windowMs` that lock the account out. */
  maxFailuresPerAccount: number;
  /** Failed logins from one client address within `windowMs` that lock the address out. */
  maxFailuresPerIp: number;
  windowMs: number;
  /** The first lock-out; each further one in a row doubles it, up to MAX_BACKOFF_STEPS doublings. */
  lockoutMs: number;
}

export interface LoginAttemptKeys {
  account: string;
  ip: string;
}

interface KeyState {
  failures: number[];
  lockouts: number;
  lockedUntil: number;
  lastFailure: number;
}

const MAX_BACKOFF_STEPS = 6;
/** Beyond this many tracked accounts and addresses the least recently failed are forgotten, so spraying cannot grow memory. */
const MAX_TRACKED_KEYS = 100_000;

/**
 * Failed-login bookkeeping per account and per client address, in this process's memory. Every
 * attempt counts as a failure from the moment it starts (so parallel guesses cannot all pass the
 * check before the first one fails) until `succeeded()` takes it back.
 */
export function createLoginThrottle(settings: LoginThrottleSettings, now: () => number = Date.now) {
  const states = new Map<string, KeyState>();
  const limitOf = (key: string) => (key.startsWith('ip:') ? settings.maxFailuresPerIp : settings.maxFailuresPerAccount);
  const keysOf = (keys: LoginAttemptKeys) => [`account:${keys.account}`, `ip:${keys.ip}`];

  function stateOf(key: string, at: number): KeyState | undefined {
    const state = states.get(key);
    if (!state) return undefined;
    // A quiet window after the last failure or lock-out forgives everything, earlier lock-outs too.
    if (at - Math.max(state.lastFailure, state.lockedUntil) > settings.windowMs) {
      states.delete(key);
      return undefined;
    }
    state.failures = state.failures.filter((time) => at - time <= settings.windowMs);
    return state;
  }

  function recordFailure(key: string, at: number): void {
    const state = stateOf(key, at) ?? { failures: [], lockouts: 0, lockedUntil: 0, lastFailure: at };
    state.failures.push(at);
    state.lastFailure = at;
    if (state.failures.length >= limitOf(key)) {
      state.lockouts++;
      state.lockedUntil = at + settings.lockoutMs * 2 ** Math.min(state.lockouts - 1, MAX_BACKOFF_STEPS);
      state.failures = [];
    }
    states.delete(key); // re-inserted last: the Map's order is then least recently failed first
    states.set(key, state);
    if (states.size > MAX_TRACKED_KEYS) states.delete(states.keys().next().value!);
  }

  return {
    /**
     * Starts an attempt: the seconds to wait when the account or the address is locked out, else
     * a handle whose `succeeded()` clears the account's failures and takes this attempt back.
     */
    begin(keys: LoginAttemptKeys): { retryAfterSeconds: number } | { succeeded(): void } {
      const at = now();
      const lockedUntil = Math.max(...keysOf(keys).map((key) => stateOf(key, at)?.lockedUntil ?? 0));
      if (lockedUntil > at) return { retryAfterSeconds: Math.ceil((lockedUntil - at) / 1000) };
      for (const key of keysOf(keys)) recordFailure(key, at);
      return {
        succeeded() {
          const [account, ip] = keysOf(keys);
          states.delete(account);
          const failures = states.get(ip)?.failures;
          const index = failures?.lastIndexOf(at) ?? -1;
          if (index >= 0) failures!.splice(index, 1);
        },
      };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
