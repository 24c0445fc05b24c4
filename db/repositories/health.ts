import type { Db } from '../connection';

export async function checkPostgres(db: Db): Promise<{ ok: boolean; error?: string }> {
  try {
    await db.raw('select 1');
    return { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
