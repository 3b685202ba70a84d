import { useCallback, useEffect, useRef } from 'react';
import type { FriendlyError } from '@/components/ui/api-error';
import type { InboxItem } from './types';

/** The notice on a call that left the list while it was open. */
export const LEFT_WHILE_OPEN: FriendlyError = {
  code: 'LEFT_WHILE_OPEN',
  message: 'This call left the list while you had it open: another reviewer decided it or took it, or its run ended.',
  next: 'Refresh to see the list as it is now, then choose the next call yourself.',
  issues: [],
};

/**
 * Keeps the call a reviewer has open from being swapped for another under their hand. When the open
 * call leaves the list by someone else's doing (a live refresh without it, at the same URL: queue,
 * filters, sort and page), `keep` is called with it: the view keeps it, marked, with LEFT_WHILE_OPEN
 * and without its buttons and keys, instead of opening its neighbour. Otherwise an Approve click or an `a` meant
 * for that call would decide the neighbour, which the reviewer never looked at.
 *
 * @param input.items the list as the server sent it
 * @param input.selectedId the open call's id
 * @param input.listQuery the page's query (queue, sort, filters, cursor): a list for another one is not a refresh
 * @param keep called with the call that left
 * @returns `ownMove(id)`: this reviewer is about to decide, withdraw or hand on call `id`, so its
 *   leaving is expected (the view moves on by itself)
 */
export function useLeftWhileOpen(input: { items: InboxItem[]; selectedId: string | null; listQuery: string }, keep: (item: InboxItem) => void) {
  const { items, selectedId, listQuery } = input;
  const previous = useRef<{ items: Map<string, InboxItem>; listQuery: string } | null>(null);
  const own = useRef(new Set<string>());
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;
  const keepRef = useRef(keep);
  keepRef.current = keep;

  useEffect(() => {
    const before = previous.current;
    previous.current = { items: new Map(items.map((item) => [item.id, item])), listQuery };
    const open = selectedRef.current;
    if (!before || before.listQuery !== listQuery || !open || own.current.has(open)) return;
    const item = before.items.get(open);
    if (item && !items.some((row) => row.id === open)) keepRef.current(item);
  }, [items, listQuery]);

  return { ownMove: useCallback((id: string) => void own.current.add(id), []) };
}
