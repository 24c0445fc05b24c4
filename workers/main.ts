import os from 'node:os';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { runMain } from '../lib/runMain';
import { ensureSearchAttributes } from '../lib/temporal/searchAttributes';
import { TASK_QUEUES } from '../workflows/taskQueues';
import { createDb } from '../db/connection';
import { createTaskActivities } from '../activities/tasks';

async function connectWithRetry(address: string, logger: Logger, timeoutMs = 60_000): Promise<NativeConnection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await NativeConnection.connect({ address });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      logger.info({ address }, 'waiting for Temporal');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Starts the Temporal workers: workflows and I/O activities on one queue, inference on its own. */
export async function startWorkers(config: Config, logger: Logger) {
  if (!config.database.url) throw new Error('DATABASE_URL is required to start the worker');
  if (!config.temporal.address) throw new Error('TEMPORAL_ADDRESS is required to start the worker');
  const connection = await connectWithRetry(config.temporal.address, logger);
  await ensureSearchAttributes(connection, config.temporal.namespace);
  const db = createDb(config.database.url, config.database.poolMax);
  const common = { connection, namespace: config.temporal.namespace, shutdownGraceTime: '10s' } as const;

  const workflowWorker = await Worker.create({
    ...common,
    taskQueue: TASK_QUEUES.workflows,
    workflowsPath: require.resolve('../workflows'),
    activities: { ...createTaskActivities({ db }) },
  });
  const workers = [workflowWorker];
  const running = workers.map((worker) => worker.run());
  logger.info({ queues: [TASK_QUEUES.workflows], cpus: os.cpus().length }, 'worker running');

  return async () => {
    for (const worker of workers) worker.shutdown();
    await Promise.allSettled(running);
    await connection.close();
    await db.destroy();
  };
}

/** Routes the SDK's own logs (warnings and up) into our JSON log stream. */
function installSdkLogger(logger: Logger): void {
  const method = (level: LogLevel) => level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error';
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => logger[method(entry.level)]({ sdk: entry.meta }, entry.message)),
  });
}

if (require.main === module) {
  runMain('worker', async (config, logger) => {
    installSdkLogger(logger);
    return startWorkers(config, logger);
  });
}
