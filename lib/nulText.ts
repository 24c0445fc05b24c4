const NUL = '\u0000';

/** Postgres refuses NUL in text and jsonb, so input holding one must be turned away before a query. */
export const containsNul = (text: string): boolean => text.includes(NUL);

/**
 * Whether any string (or object key) inside `value` (strings, arrays and plain objects, nested)
 * contains a NUL character. Iterative, because a JSON body may nest deeper than the call stack.
 */
export function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (containsNul(item)) return true;
    } else if (Array.isArray(item)) {
      for (const element of item) pending.push(element);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        if (containsNul(key)) return true;
        pending.push(element);
      }
    }
  }
  return false;
}
