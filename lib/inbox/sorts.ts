// The inbox's orders: a plain module (no server code), so the list's sort control can use it too.

/** The inbox's orders: newest first (default), oldest first, soonest deadline first. */
export const INBOX_SORTS = ['newest', 'oldest', 'deadline'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

/** Reads the order from page search params: one of INBOX_SORTS, else `newest`. */
export function sortValue(value: string | string[] | undefined): InboxSort {
  const one = Array.isArray(value) ? value[0] : value;
  return INBOX_SORTS.includes(one as InboxSort) ? (one as InboxSort) : 'newest';
}
