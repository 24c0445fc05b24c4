import { NavLink, Outlet } from 'react-router';
import { HealthBadge } from './HealthBadge';
import { NotificationBell } from './NotificationBell';

export function Layout() {
  return (
    <div className="layout">
      <header className="topbar">
        <strong className="brand">Media datasets</strong>
        <nav aria-label="Main">
          <NavLink to="/" end>
            Datasets
          </NavLink>
          <NavLink to="/tasks">Tasks</NavLink>
          <a href="/api/v1/openapi.json">API reference</a>
        </nav>
        <NotificationBell />
        <HealthBadge />
      </header>
      <main className="content">
        <Outlet />
      </main>
    </div>
  );
}
