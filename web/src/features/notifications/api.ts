import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const notificationKeys = {
  all: ['notifications'] as const,
  unread: ['notifications', 'unread'] as const,
  list: ['notifications', 'list'] as const,
};

export const notificationQueries = {
  unreadCount: () => queryOptions({ queryKey: notificationKeys.unread, queryFn: async () => unwrap(await api.GET('/api/v1/notifications/unread-count')).count }),
  /** The newest ten. */
  list: () => queryOptions({ queryKey: notificationKeys.list, queryFn: async () => unwrap(await api.GET('/api/v1/notifications', { params: { query: { limit: 10 } } })) }),
};

export async function markRead(notificationId: string) {
  return unwrap(await api.POST('/api/v1/notifications/{notification_id}/read', { params: { path: { notification_id: notificationId } } }));
}

export async function markAllRead() {
  return unwrap(await api.POST('/api/v1/notifications/read-all'));
}

/** The live stream of notifications (the session cookie, when auth is on, rides along); EventSource reconnects by itself. */
export function openNotificationStream(): EventSource {
  return new EventSource('/api/v1/notifications/stream', { withCredentials: true });
}
