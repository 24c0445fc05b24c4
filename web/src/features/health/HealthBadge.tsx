import { useQuery } from '@tanstack/react-query';
import { healthQueries } from './api';

/** Postgres, Temporal and worker health in one badge; a 503 still carries the report. */
export function HealthBadge() {
  const health = useQuery({ ...healthQueries.report(), refetchInterval: 15_000 });
  if (health.isPending) return <span className="badge">checking…</span>;
  if (health.isError) return <span className="badge bad" title={health.error.message}>API unreachable</span>;
  const report = health.data;
  const problems = [report.postgres.ok ? '' : `Postgres: ${report.postgres.error ?? 'down'}`, report.temporal.ok ? '' : `Temporal: ${report.temporal.error ?? 'down'}`]
    .filter(Boolean)
    .join('; ');
  return (
    <span className={`badge ${report.status === 'ok' ? 'ok' : 'bad'}`} title={problems || 'Postgres and Temporal are up'} data-testid="health-status">
      {report.status === 'ok' ? 'service ok' : `service ${report.status}`}
    </span>
  );
}
