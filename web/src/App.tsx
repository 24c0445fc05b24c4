import { useEffect, useState } from 'react';
import { fetchHealth, type Health } from './health';

type State = { kind: 'loading' } | { kind: 'loaded'; health: Health } | { kind: 'failed'; message: string };

function Check({ name, ok, error }: { name: string; ok: boolean; error?: string }) {
  return (
    <li>
      <strong>{name}</strong>: {ok ? 'ok' : `unavailable${error ? ` (${error})` : ''}`}
    </li>
  );
}

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    fetchHealth(controller.signal)
      .then((health) => setState({ kind: 'loaded', health }))
      .catch((error: Error) => {
        if (!controller.signal.aborted) setState({ kind: 'failed', message: error.message });
      });
    return () => controller.abort();
  }, []);

  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '3rem auto', padding: '0 1rem' }}>
      <h1>Media dataset service</h1>
      {state.kind === 'loading' && <p>Checking the service…</p>}
      {state.kind === 'failed' && <p role="alert">Could not reach the API: {state.message}</p>}
      {state.kind === 'loaded' && (
        <section aria-label="Service health">
          <p>
            Status: <strong data-testid="health-status">{state.health.status}</strong>
            {state.health.detail ? ` — ${state.health.detail}` : ''}
          </p>
          <ul>
            <Check name="Postgres" {...state.health.postgres} />
            <Check name="Temporal" {...state.health.temporal} />
          </ul>
          {state.health.temporal.workers && (
            <ul>
              {Object.entries(state.health.temporal.workers).map(([queue, pollers]) => (
                <li key={queue}>
                  Task queue <code>{queue}</code>: {pollers} worker{pollers === 1 ? '' : 's'}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <p>
        API reference: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>
      </p>
    </main>
  );
}
