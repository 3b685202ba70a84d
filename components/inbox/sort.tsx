'use client';

import { ArrowDownUp } from 'lucide-react';
import { useRouter } from 'next/navigation';
import type { InboxItem } from './types';
import { INBOX_SORTS, type InboxSort } from '@/lib/inbox/sorts';

const NO_DEADLINE = '9999-12-31T00:00:00.000Z';

/** The list order of the server (lib/inbox/queries.ts inboxPageQuery), for rows kept on screen after they left it. */
export function compareFor(sort: InboxSort): (a: InboxItem, b: InboxItem) => number {
  if (sort === 'oldest') return (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  if (sort === 'deadline') {
    return (a, b) =>
      (a.deadlineAt ?? NO_DEADLINE).localeCompare(b.deadlineAt ?? NO_DEADLINE) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  }
  return (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

const SORT_LABELS: Record<InboxSort, string> = { newest: 'Newest first', oldest: 'Oldest first', deadline: 'Deadline soonest' };

/**
 * The list's order, kept in the URL (`?sort=oldest|deadline`; newest first without it) with the
 * queue and filters; changing it starts again at the first page (a cursor belongs to one order).
 */
export function SortSelect({ value, listQuery }: { value: InboxSort; listQuery: URLSearchParams }) {
  const router = useRouter();
  return (
    <label className="flex items-center gap-1.5 text-sm">
      <ArrowDownUp className="size-4 text-muted-foreground" aria-hidden />
      <span className="sr-only sm:not-sr-only sm:text-muted-foreground">Sort</span>
      <select
        value={value}
        data-testid="inbox-sort"
        onChange={(event) => {
          const params = new URLSearchParams(listQuery);
          params.delete('cursor');
          if (event.target.value === 'newest') params.delete('sort');
          else params.set('sort', event.target.value);
          router.push(params.size > 0 ? `/inbox?${params}` : '/inbox');
        }}
        className="h-8 rounded-md border border-input bg-background px-2 text-sm"
      >
        {INBOX_SORTS.map((key) => (
          <option key={key} value={key}>
            {SORT_LABELS[key]}
          </option>
        ))}
      </select>
    </label>
  );
}
