import { createHash, randomBytes } from 'node:crypto';

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Session tokens are stored only as this digest, so a database leak does not leak live sessions. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
