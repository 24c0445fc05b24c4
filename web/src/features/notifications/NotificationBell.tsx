import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../components/ErrorMessage';
import { exploreKeys } from '../explore/api';
import { viewKeys } from '../views/api';
import { viewNotificationUrl } from '../views/viewLinks';
import { markAllRead, markRead as markOneRead, notificationKeys, notificationQueries, openNotificationStream } from './api';

/** Unread notifications, live from the SSE stream (the session cookie, when auth is on, rides along), with mark-read. */
export function NotificationBell() {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return undefined;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [open]);
  const unread = useQuery(notificationQueries.unreadCount());
  const list = useQuery({ ...notificationQueries.list(), enabled: open });
  useEffect(() => {
    // EventSource reconnects by itself after a dropped connection; every event refreshes the count and list.
    const stream = openNotificationStream();
    // A notification comes from a saved view's evaluation of a new batch: the views' trends and Explore have moved too.
    const refresh = () => void Promise.all([notificationKeys.all, viewKeys.all, exploreKeys.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    stream.addEventListener('notification', refresh);
    stream.addEventListener('open', refresh);
    return () => stream.close();
  }, [queryClient]);
  const markRead = useMutation({
    mutationFn: markOneRead,
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
  const markAll = useMutation({
    mutationFn: markAllRead,
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
  const count = unread.data ?? 0;

  return (
    <div className="bell">
      <button type="button" aria-expanded={open} aria-label={`Notifications, ${count} unread`} onClick={() => setOpen(!open)}>
        Notifications <span className={`count${count > 0 ? ' unread' : ''}`} data-testid="unread-count">{count}</span>
      </button>
      {open && (
        <div className="bell-panel" role="dialog" aria-label="Notifications">
          <ErrorMessage error={list.error ?? markRead.error ?? markAll.error} />
          {list.data?.notifications.length === 0 && <p>No notification.</p>}
          <ul>
            {list.data?.notifications.map((notification) => (
              <li key={notification.id} className={notification.read_at ? 'read' : 'unread'} data-testid="notification">
                <div>
                  {notification.entity_type === 'saved_view' && notification.dataset_id && notification.entity_id ? (
                    <Link
                      to={viewNotificationUrl(notification.dataset_id, notification.entity_id, notification.metadata.batch_id)}
                      onClick={() => {
                        setOpen(false);
                        // Opened is read: the bell counts what is still to be seen.
                        if (!notification.read_at) markRead.mutate(notification.id);
                      }}
                    >
                      {notification.title || notification.message}
                    </Link>
                  ) : (
                    notification.title || notification.message
                  )}
                </div>
                {notification.title && notification.message && <div className="muted">{notification.message}</div>}
                <div className="muted">
                  {new Date(notification.created_at).toLocaleString()}{' '}
                  {!notification.read_at && (
                    <button type="button" onClick={() => markRead.mutate(notification.id)}>
                      Mark read
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
          {count > 0 && (
            <button type="button" onClick={() => markAll.mutate()}>
              Mark all read
            </button>
          )}
        </div>
      )}
    </div>
  );
}
