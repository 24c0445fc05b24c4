import type { Db } from '../connection';

export interface NotificationRow {
  id: string;
  seq?: string;
  user_id: string;
  entity_type: string;
  entity_id: string | null;
  title: string;
  message: string | null;
  metadata: Record<string, unknown>;
  dataset_id: string | null;
  created_at: Date;
  read_at: Date | null;
}

export type NewNotification = Omit<NotificationRow, 'id' | 'seq' | 'created_at' | 'read_at'>;

/** Notifications are only made by the service itself (saved-view monitoring). */
export async function insertNotifications(db: Db, notifications: NewNotification[]): Promise<void> {
  if (notifications.length === 0) return;
  await db('notifications').insert(notifications.map((n) => ({ ...n, metadata: JSON.stringify(n.metadata) })));
}

function ofUser(db: Db, userId: string, options: { datasetId?: string; unreadOnly?: boolean }) {
  const query = db('notifications as n')
    .where({ user_id: userId })
    // A deleted dataset's notifications go with it (its rows are purged later).
    .whereNotExists(db('datasets as d').whereRaw('d.id = n.dataset_id').whereNotNull('d.deleted_at'));
  if (options.datasetId) query.where({ dataset_id: options.datasetId });
  if (options.unreadOnly) query.whereNull('read_at');
  return query;
}

export async function listNotifications(
  db: Db,
  userId: string,
  options: { limit: number; offset: number; unreadOnly: boolean; datasetId?: string },
): Promise<{ rows: NotificationRow[]; total: number }> {
  const [{ total }] = await ofUser(db, userId, options).count({ total: '*' });
  const rows = await ofUser(db, userId, options)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(options.limit)
    .offset(options.offset);
  return { rows, total: Number(total) };
}

export async function countUnread(db: Db, userId: string, datasetId?: string): Promise<number> {
  const [{ count }] = await ofUser(db, userId, { datasetId, unreadOnly: true }).count({ count: '*' });
  return Number(count);
}

/** Marks one unread notification of the user read; false when it is missing, foreign or already read. */
export async function markRead(db: Db, userId: string, notificationId: string): Promise<boolean> {
  return (await db('notifications').where({ id: notificationId, user_id: userId }).whereNull('read_at').update({ read_at: db.fn.now() })) === 1;
}

export async function markAllRead(db: Db, userId: string, datasetId?: string): Promise<number> {
  return ofUser(db, userId, { datasetId, unreadOnly: true }).update({ read_at: db.fn.now() });
}

/** Where a new stream starts: after every notification that exists now. */
export async function latestNotificationSeq(db: Db): Promise<string> {
  const [{ seq }] = await db('notifications').max({ seq: 'seq' });
  return String(seq ?? 0);
}

/** The user's notifications inserted after `afterSeq`, oldest first (what a stream has not sent yet). */
/** Rows one read of a stream's feed returns at most. */
export const NOTIFICATIONS_PER_READ = 100;

export async function notificationsAfter(
  db: Db,
  userId: string,
  afterSeq: string,
  datasetId?: string,
): Promise<Array<NotificationRow & { seq: string }>> {
  return ofUser(db, userId, { datasetId }).where('seq', '>', afterSeq).orderBy('seq').limit(NOTIFICATIONS_PER_READ);
}
