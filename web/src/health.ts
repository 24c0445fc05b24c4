/** GET /api/v1/health as the API documents it (docs/openapi.json, schema Health). */
export interface Health {
  status: 'ok' | 'unavailable';
  detail?: string;
  postgres: { ok: boolean; error?: string };
  temporal: { ok: boolean; error?: string; workers?: Record<string, number> };
}

/** The health report; a 503 carries one too, so only an unreadable answer is an error. */
export async function fetchHealth(signal?: AbortSignal): Promise<Health> {
  const response = await fetch('/api/v1/health', { signal, headers: { Accept: 'application/json' } });
  const body: unknown = await response.json().catch(() => undefined);
  if (!body || typeof body !== 'object' || !('status' in body)) throw new Error(`The API answered ${response.status}`);
  return body as Health;
}
