/** Changes to a page's URL query: a value sets its key, undefined or '' removes it. */
export type UrlChanges = Record<string, string | undefined>;

/** The URL query after `changes`; any change that does not name `page` starts again on the first page. */
export function applyUrlChanges(current: URLSearchParams, changes: UrlChanges): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [key, value] of Object.entries(changes)) {
    if (value) next.set(key, value);
    else next.delete(key);
  }
  if (!('page' in changes)) next.delete('page');
  return next;
}
