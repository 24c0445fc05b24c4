import type { Context } from 'koa';
import type { LoginThrottle } from '../lib/auth/loginThrottle';
import { HttpError } from './errors';

/** Throws 429 with Retry-After while the throttle locks these keys out; else the attempt to settle. */
export function beginAttempt(ctx: Context, throttle: LoginThrottle, account: string, detail: string): { succeeded(): void } {
  const attempt = throttle.begin({ account, ip: ctx.ip });
  if ('retryAfterSeconds' in attempt) {
    ctx.set('Retry-After', String(attempt.retryAfterSeconds));
    throw new HttpError(429, `${detail}: try again in ${attempt.retryAfterSeconds} s`);
  }
  return attempt;
}
