import type { Connection } from '@temporalio/client';
import type { Db } from '../db/connection';
import { checkPostgres } from '../db/repositories/health';
import { checkTemporal, type TemporalHealth } from '../lib/temporal/health';
import { taskQueues } from '../workflows/contracts';

export interface HealthDeps {
  db: Db;
  temporal: Connection;
  namespace: string;
  /** The main task queue; the workers of every queue derived from it are counted. */
  taskQueue: string;
}

export interface Health {
  ok: boolean;
  postgres: { ok: boolean; error?: string };
  temporal: TemporalHealth;
}

/** Whether Postgres answers, and whether Temporal does with a worker polling each task queue. */
export async function checkHealth(deps: HealthDeps): Promise<Health> {
  const [postgres, temporal] = await Promise.all([
    checkPostgres(deps.db),
    checkTemporal(deps.temporal, deps.namespace, Object.values(taskQueues(deps.taskQueue))),
  ]);
  return { ok: postgres.ok && temporal.ok, postgres, temporal };
}
