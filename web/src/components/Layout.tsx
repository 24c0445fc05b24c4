import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useAuthSession } from '../api/authSession';
import { NavLink, Outlet } from 'react-router';
import { api } from '../api/client';
import { sessionStore, useSession } from '../api/session';
import { LoginPage } from '../pages/LoginPage';
import { HealthBadge } from './HealthBadge';
import { NotificationBell } from './NotificationBell';

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
              const { data } = await api.POST('/api/v1/auth/logout', { params: { query: {} } });
              queryClient.clear();
              sessionStore.signedOut();
              // The identity provider ends its session too, then sends the browser back here.
              if (data?.logout_url) window.location.assign(data.logout_url);
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
