import { CancelledFailure, Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { ExportInput } from '../workflows/contracts';
import { packageExport } from '../services/exportPackaging';
import { markTaskCompleted } from '../services/taskTypes';
import { heartbeating } from './liveness';

/** EXPORT's steps: thin adapters over services/exportPackaging.ts that heartbeat and stop when the task is aborted. */
export function createExportActivities(deps: { db: Db; store: ObjectStore; stagingDir: string }) {
  return heartbeating({
    async packageExport(input: ExportInput): Promise<{ items: number; bytes: number }> {
      const context = Context.current();
      return packageExport(deps, {
        heartbeat: (done) => context.heartbeat({ done }),
        throwIfCancelled: () => {
          if (context.cancellationSignal.aborted) throw new CancelledFailure('Export aborted');
        },
      }, input);
    },

    /** The task COMPLETED: its archive is stored and export_status hands out a link to it. */
    async completeExport(input: { taskId: string; fileName: string; items: number; bytes: number }): Promise<void> {
      const megabytes = (input.bytes / 2 ** 20).toFixed(1);
      await markTaskCompleted(deps.db, input.taskId, `Exported ${input.items} media into ${input.fileName} (${megabytes} MB)`);
    },
  });
}
