import type { Db } from '../db/connection';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { ExportInput } from '../workflows/contracts';
import { packageExport } from '../services/exportPackaging';
import { markTaskCompleted } from '../services/taskTypes';
import { activityLiveness, heartbeating } from './liveness';

/** EXPORT's steps: thin adapters over services/exportPackaging.ts, heartbeating and stopped by an abort. */
export function createExportActivities(deps: { db: Db; store: ObjectStore; stagingDir: string }) {
  return heartbeating({
    packageExport: (input: ExportInput): Promise<{ items: number; bytes: number }> => packageExport(deps, activityLiveness(), input),

    /** The task COMPLETED: its archive is stored and export_status hands out a link to it. */
    async completeExport(input: { taskId: string; fileName: string; items: number; bytes: number }): Promise<void> {
      const megabytes = (input.bytes / 2 ** 20).toFixed(1);
      await markTaskCompleted(deps.db, input.taskId, `Exported ${input.items} media into ${input.fileName} (${megabytes} MB)`);
    },
  });
}
