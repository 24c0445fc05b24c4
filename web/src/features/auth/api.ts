import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const authKeys = {
  session: ['auth-session'] as const,
};

/** Whom the browser's session stands for and how this server signs people in (never a 401). */
export function useAuthSession() {
  return useQuery({
    queryKey: authKeys.session,
    queryFn: async () => unwrap(await api.GET('/api/v1/auth/session')),
    staleTime: Infinity,
  });
}

/** The identity provider's login, coming back to the page the browser is on. */
export function providerLoginHref(loginUrl: string): string {
  return `${loginUrl}?return_to=${encodeURIComponent(window.location.pathname + window.location.search)}`;
}

/** A password login: the API sets the session cookie and names who signed in. */
export async function logIn(email: string, password: string) {
  return unwrap(await api.POST('/api/v1/auth/login', { body: { email, password } }));
}

/** Ends the session; with an identity provider the answer names where its own session ends too. */
export async function logOut(): Promise<string | undefined> {
  const { data } = await api.POST('/api/v1/auth/logout', { params: { query: {} } });
  return data?.logout_url ?? undefined;
}
