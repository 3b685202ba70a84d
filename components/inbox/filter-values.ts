// The inbox's filter values as they travel in the URL; plain functions, usable on the server and in the browser.

/** The filters as they are in the URL (empty strings for unset ones). */
export interface InboxFilterValues {
  toolName: string;
  agentId: string;
  requester: string;
  /** Who decided (Done tab only). */
  person: string;
  /** approval | decline | resume (Done tab only). */
  kind: string;
  /** YYYY-MM-DD */
  from: string;
  to: string;
}

export const INBOX_FILTER_KEYS = ['toolName', 'agentId', 'requester', 'person', 'kind', 'from', 'to'] as const;

/** Reads the filter values out of page search params (anything else is ignored). */
export function filterValues(params: Record<string, string | string[] | undefined>): InboxFilterValues {
  const one = (key: string) => {
    const value = params[key];
    return (Array.isArray(value) ? value[0] : value)?.slice(0, 200) ?? '';
  };
  return Object.fromEntries(INBOX_FILTER_KEYS.map((key) => [key, one(key)])) as unknown as InboxFilterValues;
}


/** What each filter of a page link is called on the page, for the note about unreadable ones. */
const FILTER_LABELS: Record<string, string> = {
  toolName: 'tool',
  agentId: 'agent',
  requester: 'requester',
  person: 'decided by',
  actorId: 'decided by (id)',
  actor: 'who',
  action: 'action',
  kind: 'outcome',
  from: 'from',
  to: 'until',
};

/**
 * The note a list page shows when filters of its link could not be read and were left out, naming
 * them ("… could not be read, so they are left out: from, tool. A date looks like 2026-11-30.").
 * @param keys the query fields left out (`cursor` and other non-filters are not named)
 * @returns the sentence, or null when no filter was left out
 */
export function unreadFiltersNote(keys: readonly string[]): string | null {
  const named = keys.filter((key) => key in FILTER_LABELS);
  if (named.length === 0) return null;
  const dates = named.some((key) => key === 'from' || key === 'to');
  return (
    `${named.length === 1 ? 'A filter in this link could not be read, so it is left out' : 'Some filters in this link could not be read, so they are left out'}: ` +
    `${named.map((key) => FILTER_LABELS[key]).join(', ')}.${dates ? ' A date looks like 2026-11-30.' : ''}`
  );
}

/**
 * The note a list page shows instead of its empty list when the link's date range starts after it
 * ends (the API refuses such a range with 400 BAD_REQUEST), naming both fields as the filters call
 * them ("from" and "until").
 * @param from the link's `from`, as typed; `to` its `to`
 */
export function reversedRangeNote(from: string, to: string): string {
  return `The dates are the wrong way round: from (${from}) is after until (${to}), so nothing can match. Swap them to search that range.`;
}

/**
 * A page's filter values with those its query left out shown empty (the form then offers them
 * blank), for `parseLeavingOut`'s `leftOut`; names that are not filters (a cursor) change nothing.
 */
export function withoutUnread<T extends object>(filters: T, leftOut: readonly string[]): T {
  return { ...filters, ...Object.fromEntries(leftOut.filter((key) => key in filters).map((key) => [key, ''])) };
}
