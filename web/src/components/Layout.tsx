import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { sessionStore, useSession } from '../api/session';
import { logOut, useAuthSession } from '../features/auth/api';
import { LoginPage } from '../features/auth/LoginPage';
import { HealthBadge } from '../features/health/HealthBadge';
import { NotificationBell } from '../features/notifications/NotificationBell';

export function Layout() {
  const session = useSession();
  const queryClient = useQueryClient();
  const authSession = useAuthSession();
  // A session the identity provider's login made (the page reloaded after it): say who is signed in.
  const signedInAs = authSession.data?.auth_enabled ? authSession.data.user?.email : undefined;
  useEffect(() => {
    if (signedInAs) sessionStore.signedIn(signedInAs);
  }, [signedInAs]);
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <strong className="brand">Media datasets</strong>
        <nav aria-label="Main">
          <NavLink to="/" end>
            Datasets
          </NavLink>
          <NavLink to="/tasks">Tasks</NavLink>
          <a href="/api/v1/docs">API reference</a>
        </nav>
        {/* The stream opens again after a login: the first one was refused without the cookie. */}
        {!session.loginRequired && <NotificationBell key={session.email ?? 'anonymous'} />}
        {session.email && (
          <button
            type="button"
            className="signout"
            onClick={async () => {
              const logoutUrl = await logOut();
              queryClient.clear();
              sessionStore.signedOut();
              // The identity provider ends its session too, then sends the browser back here.
              if (logoutUrl) window.location.assign(logoutUrl);
            }}
          >
            Sign out {session.email}
          </button>
        )}
        <HealthBadge />
      </header>
      <main className="content" id="main" tabIndex={-1}>{session.loginRequired ? <LoginPage /> : <Outlet />}</main>
    </div>
  );
}
