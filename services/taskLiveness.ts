/**
 * What a long use case tells the task running it and asks it: a heartbeat (with details a retry may resume from) and
 * whether the task was cancelled. An activity passes its Temporal context's (activities/liveness.ts); a caller
 * outside a task passes `unattended`.
 */
export interface Liveness {
  heartbeat(details?: unknown): void;
  signal: AbortSignal;
}

/** For a caller outside a task (a request, a bench): nobody to tell, never cancelled. */
export const unattended: Liveness = { heartbeat: () => undefined, signal: new AbortController().signal };

/** Heartbeats, then throws the cancellation's reason once the task is cancelled. */
export function heartbeatOrStop(live: Liveness, details?: unknown): void {
  live.heartbeat(details);
  if (live.signal.aborted) throw live.signal.reason;
}
