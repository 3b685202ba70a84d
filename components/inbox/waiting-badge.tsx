'use client';

import { Bell, BellOff, BellRing } from 'lucide-react';
import { usePathname } from 'next/navigation';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { Button } from '@/components/ui/button';

/** How often the count is read while the page is visible, in ms. */
const POLL_MS = 5_000;
const OPT_IN_KEY = 'countersign:browser-notifications';
const TITLE_PREFIX = /^\(\d+\+?\) /;

interface Waiting {
  count: number;
  capped: boolean;
  newest: { id: string; toolName: string; createdAt: string } | null;
}

// One shared reading for every badge on the page.
let current: Waiting | null = null;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

async function refresh() {
  if (document.visibilityState !== 'visible') return;
  const response = await fetch('/api/inbox/count', { cache: 'no-store' }).catch(() => null);
  if (!response?.ok) return;
  const next = (await response.json()) as Waiting;
  const before = current;
  current = next;
  // New since the last look: also the first call into an empty inbox (nothing was newest before).
  const isNew = before !== null && next.newest !== null && (!before.newest || (next.newest.id !== before.newest.id && next.newest.createdAt > before.newest.createdAt));
  if (isNew) {
    announce(next);
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    void refresh();
    timer = setInterval(() => void refresh(), POLL_MS);
    document.addEventListener('visibilitychange', onVisible);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
      document.removeEventListener('visibilitychange', onVisible);
    }
  };
}

function onVisible() {
  void refresh();
}

/** Whether this browser may show notifications and the person opted in (kept per browser). */
function notificationsOn(): boolean {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted' && localStorage.getItem(OPT_IN_KEY) === '1';
}

/** A browser notification about a new waiting call, when the person opted in; a click opens it in the inbox. */
function announce(waiting: Waiting) {
  if (!notificationsOn() || !waiting.newest) return;
  const label = `${waiting.count}${waiting.capped ? '+' : ''}`;
  const notification = new Notification(`New in your inbox (${label} waiting)`, {
    body: `${waiting.newest.toolName} waits for a decision.`,
    tag: 'countersign-inbox',
  });
  const id = waiting.newest.id;
  notification.onclick = () => {
    window.focus();
    window.location.assign(`/inbox?call=${encodeURIComponent(id)}`);
  };
}

/** The current reading (null until the first answer). */
export function useWaiting(): Waiting | null {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => null,
  );
}

/**
 * How many calls wait for the signed-in reviewer: a badge (beside the Inbox link) and the tab
 * title, "(3) Inbox · Countersign". Reads `/api/inbox/count` every few seconds while visible; a
 * new call raises a browser notification for those who turned them on (NotificationsButton).
 */
export function WaitingBadge() {
  const waiting = useWaiting();
  const pathname = usePathname();
  const label = waiting ? `${waiting.count}${waiting.capped ? '+' : ''}` : null;

  useEffect(() => {
    const base = document.title.replace(TITLE_PREFIX, '');
    document.title = waiting && waiting.count > 0 ? `(${label}) ${base}` : base;
  }, [waiting, label, pathname]);

  if (!waiting || waiting.count === 0) return null;
  return (
    <span data-testid="waiting-badge" className="ml-0.5 inline-flex">
      <span aria-hidden className="inline-flex min-w-5 items-center justify-center rounded-full bg-primary px-1.5 text-[11px] leading-5 font-semibold text-primary-foreground">
        {label}
      </span>
      <span className="sr-only">, {label} waiting for you</span>
    </span>
  );
}

function permissionNow(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/**
 * Opt-in to browser notifications about new waiting calls (the Notification API). Asks the
 * browser's permission on the first click; a second click turns them off again for this browser.
 */
export function NotificationsButton() {
  const [on, setOn] = useState(false);
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported' | null>(null);
  useEffect(() => {
    setPermission(permissionNow());
    setOn(notificationsOn());
  }, []);
  if (permission === null || permission === 'unsupported') return null;
  if (permission === 'denied') {
    return (
      <Button variant="ghost" size="sm" disabled title="This browser blocks notifications from this site: allow them in the site settings." data-testid="notifications-toggle">
        <BellOff aria-hidden /> <span className="sr-only sm:not-sr-only">Notifications blocked</span>
      </Button>
    );
  }
  return (
    <Button
      variant="ghost"
      size="sm"
      aria-pressed={on}
      data-testid="notifications-toggle"
      title={on ? 'Browser notifications are on: turn them off' : 'Get a browser notification when something new waits for you'}
      onClick={async () => {
        if (on) {
          localStorage.removeItem(OPT_IN_KEY);
          setOn(false);
          return;
        }
        const answer = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
        setPermission(answer);
        if (answer === 'granted') {
          localStorage.setItem(OPT_IN_KEY, '1');
          setOn(true);
        }
      }}
    >
      {on ? <BellRing aria-hidden /> : <Bell aria-hidden />}
      <span className="sr-only sm:not-sr-only">{on ? 'Notifications on' : 'Notify me'}</span>
    </Button>
  );
}
