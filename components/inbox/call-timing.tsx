'use client';

import { AlarmClock } from 'lucide-react';
import type { InboxItem } from './types';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/components/ui/cn';
import { formatExactWithZone, formatSpan, isOverdue } from '@/components/ui/format-time';
import { useNow } from '@/components/ui/time';

/**
 * How long a call has waited ("waiting 3 hours") and, when it has a deadline, what happens when
 * ("declined in 20 minutes", "escalates to admins in 5 minutes", "escalated; declined in 1 hour");
 * the exact instants with their time zone on hover. An overdue call (see InboxItem.overdueAt) gets
 * an "Overdue" badge: a word, not a colour alone. Renders nothing until hydrated (times are the
 * viewer's own).
 */
export function CallTiming({ item, className }: { item: InboxItem; className?: string }) {
  const now = useNow();
  if (now === null) return <span className={className} data-testid="call-timing" />;
  const created = new Date(item.createdAt).getTime();
  const overdue = item.status === 'pending' && isOverdue(item.overdueAt, now);
  const deadline = item.deadlineAt ? new Date(item.deadlineAt).getTime() : null;
  let due: string | null = null;
  if (deadline !== null && item.status === 'pending') {
    const what = item.deadlineAction === 'escalate' && !item.escalatedAt ? 'escalates to admins' : 'declined automatically';
    due = deadline > now ? `${what} in ${formatSpan(now, deadline)}` : `${what} now`;
  }
  return (
    <span className={cn('flex min-w-0 flex-wrap items-center gap-x-1.5 gap-y-0.5', className)} data-testid="call-timing" data-overdue={overdue || undefined}>
      {overdue ? (
        <Badge tone="danger" data-testid="call-overdue" title={item.overdueAt ? `Overdue since ${formatExactWithZone(item.overdueAt)}` : undefined}>
          <AlarmClock aria-hidden /> Overdue
        </Badge>
      ) : null}
      <time dateTime={item.createdAt} title={`Asked ${formatExactWithZone(item.createdAt)}`} data-testid="call-age">
        waiting {formatSpan(created, Math.max(created, now))}
      </time>
      {due && item.deadlineAt ? (
        <>
          <span aria-hidden>·</span>
          <time dateTime={item.deadlineAt} title={`Deadline ${formatExactWithZone(item.deadlineAt)}`} data-testid="call-deadline">
            {due}
          </time>
        </>
      ) : null}
    </span>
  );
}
