import { useSearchParams } from 'react-router';
import { applyUrlChanges, type UrlChanges } from './urlChanges';

/** A page's state kept in the URL query, so it can be linked and survives a reload. */
export function useUrlState(): [URLSearchParams, (changes: UrlChanges) => void] {
  const [params, setParams] = useSearchParams();
  const change = (changes: UrlChanges) => setParams((current) => applyUrlChanges(current, changes));
  return [params, change];
}
