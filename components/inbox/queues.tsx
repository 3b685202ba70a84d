import Link from 'next/link';
import { cn } from '@/components/ui/cn';
import type { InboxQueue } from '@/lib/inbox/queries';
import type { InboxSort } from '@/lib/inbox/sorts';

/** The inbox's queue tabs, in order, with what each shows when empty. */
export const QUEUE_TABS: { key: InboxQueue; label: string; empty: string }[] = [
  { key: 'mine', label: 'For me', empty: 'Nothing waits for you: nothing is assigned to you, and nobody else’s unassigned call is yours to decide.' },
  { key: 'unassigned', label: 'Unassigned', empty: 'Every waiting call has someone on it.' },
  { key: 'all', label: 'All', empty: 'New approvals and questions from agents show up here by themselves.' },
  { key: 'requested', label: 'My requests', empty: 'Nothing you asked for is waiting.' },
];

/**
 * The page URL of a queue (the URL holds the queue, the order, the filters and the search, so it can
 * be shared and reloaded). The first page: a cursor belongs to one queue.
 * @param keep the list's current query, whose filters and search (`q`) the queue keeps
 */
export function queueHref(queue: InboxQueue, sort: InboxSort = 'newest', keep?: URLSearchParams): string {
  const kept = [...(keep ?? [])].filter(([key]) => !['queue', 'sort', 'cursor', 'status', 'call'].includes(key));
  const params = new URLSearchParams([...(queue === 'all' ? [] : [['queue', queue]]), ...(sort === 'newest' ? [] : [['sort', sort]]), ...kept]);
  return params.size > 0 ? `/inbox?${params}` : '/inbox';
}

/** "999+" for a count at the cap (see QUEUE_COUNT_CAP). */
function countText(count: number, cap: number): string {
  return count >= cap ? `${cap - 1}+` : String(count);
}

/** Tabs "For me", "Unassigned", "All", "My requests", each with its count of waiting calls under the list's filters and search (kept by the links). */
export function QueueTabs({
  current,
  counts,
  cap,
  sort = 'newest',
  keep,
}: {
  current: InboxQueue;
  counts: Record<InboxQueue, number>;
  cap: number;
  sort?: InboxSort;
  keep?: URLSearchParams;
}) {
  return (
    <nav aria-label="Queues" className="flex rounded-md border border-border p-0.5 text-sm">
      {QUEUE_TABS.map((tab) => (
        <Link
          key={tab.key}
          href={queueHref(tab.key, sort, keep)}
          aria-current={current === tab.key ? 'page' : undefined}
          data-testid={`queue-${tab.key}`}
          className={cn(
            'rounded px-2.5 py-1 whitespace-nowrap focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none',
            current === tab.key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
          )}
        >
          {tab.label} <span className="text-xs text-muted-foreground" data-testid={`queue-${tab.key}-count`}>{countText(counts[tab.key], cap)}</span>
        </Link>
      ))}
    </nav>
  );
}
