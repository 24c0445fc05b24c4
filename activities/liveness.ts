import { Context } from '@temporalio/activity';
import type { Liveness } from '../services/taskLiveness';

/** How often an activity wrapped by `heartbeating` tells Temporal that its worker is alive. */
const LIVENESS_INTERVAL_MS = 5000;

type Activity = (...args: never[]) => Promise<unknown>;

/**
 * The activities, each heartbeating every few seconds while it runs, whatever it waits on (one long
 * INSERT … SELECT of a version copy gives no other moment to). A worker that dies or freezes stops
 * them, so Temporal gives the attempt to another worker after a heartbeat timeout of seconds instead
 * of minutes (the fault matrix found a restore held 10 minutes by a killed worker). Every long task
 * activity is wrapped; CPU-bound steps let the event loop through now and then so the timer can fire.
 */
export function heartbeating<T extends Record<string, Activity>>(activities: T): T {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (...args: never[]) => {
      const context = Context.current();
      const timer = setInterval(() => context.heartbeat(), LIVENESS_INTERVAL_MS);
      try {
        return await activity(...args);
      } finally {
        clearInterval(timer);
      }
    },
  ]);
  return Object.fromEntries(wrapped) as T;
}

/** The running activity's heartbeat and cancellation, for the services it calls. */
export function activityLiveness(): Liveness {
  const context = Context.current();
  return { heartbeat: (details?: unknown) => context.heartbeat(details), signal: context.cancellationSignal };
}
