import type { Db } from '../db/connection';
import type { User } from '../db/models';
export { NOTIFICATIONS_PER_READ } from '../db/repositories/notifications';
import {
  countUnread,
  latestNotificationSeq,
  listNotifications,
  markAllRead,
  markRead,
  notificationsAfter,
  type NotificationRow,
} from '../db/repositories/notifications';
import { notFound } from '../lib/errors';

export function listUserNotifications(
  db: Db,
  user: User,
  options: { limit: number; offset: number; unreadOnly: boolean; datasetId?: string },
): Promise<{ rows: NotificationRow[]; total: number }> {
  return listNotifications(db, user.id, options);
}

export function countUnreadNotifications(db: Db, user: User, datasetId?: string): Promise<number> {
  return countUnread(db, user.id, datasetId);
}

/** Marks every unread notification of the user (of one dataset, if given) read; returns how many. */
export function markAllNotificationsRead(db: Db, user: User, datasetId?: string): Promise<number> {
  return markAllRead(db, user.id, datasetId);
}

export async function markNotificationRead(db: Db, user: User, notificationId: string): Promise<void> {
  if (!(await markRead(db, user.id, notificationId))) throw notFound('Notification not found or already read');
}

/** The user's notifications made from now on: each call of `next` returns those that arrived since the last. */
export async function followNotifications(db: Db, user: User, datasetId?: string): Promise<{ next(): Promise<NotificationRow[]> }> {
  let cursor = await latestNotificationSeq(db);
  return {
    async next() {
      const fresh = await notificationsAfter(db, user.id, cursor, datasetId);
      if (fresh.length > 0) cursor = fresh[fresh.length - 1].seq;
      return fresh;
    },
  };
}
