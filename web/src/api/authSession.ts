import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

/** Whom the browser's session stands for and how this server signs people in (never a 401). */
export function useAuthSession() {
  return useQuery({
    queryKey: ['auth-session'],
    queryFn: async () => unwrap(await api.GET('/api/v1/auth/session')),
    staleTime: Infinity,
  });
}

/** The identity provider's login, coming back to the page the browser is on. */
export function providerLoginHref(loginUrl: string): string {
  return `${loginUrl}?return_to=${encodeURIComponent(window.location.pathname + window.location.search)}`;
}
