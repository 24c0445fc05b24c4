import { useSyncExternalStore } from 'react';

/** Whether the API wants a login (it answered 401) and who signed in here; one store for the whole app. */
interface Session {
  loginRequired: boolean;
  email?: string;
}

let session: Session = { loginRequired: false };
const listeners = new Set<() => void>();

function set(next: Session): void {
  session = next;
  for (const listener of listeners) listener();
}

export const sessionStore = {
  /** A 401 from any call: show the login form instead of the page. */
  requireLogin: () => {
    if (!session.loginRequired) set({ loginRequired: true });
  },
  signedIn: (email: string) => set({ loginRequired: false, email }),
  signedOut: () => set({ loginRequired: true }),
};

export function useSession(): Session {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => session,
  );
}
