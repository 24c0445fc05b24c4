import { useSearchParams } from 'react-router';

/** Changes to a page's URL query: a value sets its key, undefined or '' removes it. */
export type UrlChanges = Record<string, string | undefined>;

/**
 * A page's state kept in the URL query, so it can be linked and survives a reload. Any change that
 * does not name `page` starts again on the first page.
 */
export function useUrlState(): [URLSearchParams, (changes: UrlChanges) => void] {
  const [params, setParams] = useSearchParams();
  const change = (changes: UrlChanges) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      if (!('page' in changes)) next.delete('page');
      return next;
    });
  return [params, change];
}
