import { z } from 'zod';

/** Timestamps leave the API as ISO 8601 in UTC with a Z suffix (docs/decisions.md). */
export function isoTime(value: Date | string): string;
export function isoTime(value: Date | string | null): string | null;
export function isoTime(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** The schema of a timestamp isoTime wrote. */
export const timestamp = z.iso.datetime();
