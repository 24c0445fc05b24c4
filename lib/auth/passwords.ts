import { hash, verify } from '@node-rs/argon2';
import { randomToken } from './randomTokens';

/** Argon2id with the library's defaults (memory-hard, 19 MiB, 2 passes). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

let dummyHash: Promise<string> | undefined;

/** A hash nobody knows the password of, made with the same parameters as real ones. */
export function dummyPasswordHash(): Promise<string> {
  return (dummyHash ??= hashPassword(randomToken()));
}

/**
 * Whether `password` matches `passwordHash`. A user without a hash (unknown email, no password
 * set) is checked against a dummy hash, so the answer takes as long as for a real account.
 */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  const matches = await verify(passwordHash ?? (await dummyPasswordHash()), password).catch(() => false);
  return passwordHash !== null && matches;
}
