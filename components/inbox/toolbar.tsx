'use client';

import { Search } from 'lucide-react';
import type { RefObject } from 'react';
import { InboxFilters, type InboxFilterValues } from './inbox-filters';
import { InboxLists } from './lists';
import { QueueTabs } from './queues';
import { SortSelect } from './sort';
import type { InboxQueue } from '@/lib/inbox/queries';
import type { InboxSort } from '@/lib/inbox/sorts';
import { cn } from '@/components/ui/cn';
import { Input } from '@/components/ui/textarea';
import { personName, summarizeArgs, type People } from '@/components/ui/describe';
import type { InboxItem } from './types';

/** Which kinds of call the list shows (a filter of the page in hand, not of the server's query). */
export type KindFilter = 'all' | 'approval' | 'suspension';

const KIND_FILTERS: { key: KindFilter; label: string }[] = [
  { key: 'all', label: 'All kinds' },
  { key: 'approval', label: 'Approvals' },
  { key: 'suspension', label: 'Questions' },
];

export interface InboxToolbarProps {
  status: 'pending' | 'unknown';
  queue: InboxQueue;
  queueCounts: Record<InboxQueue, number>;
  queueCap: number;
  sort: InboxSort;
  /** The list's queue, order and filters, for links that keep them. */
  listQuery: URLSearchParams;
  kind: KindFilter;
  onKind: (kind: KindFilter) => void;
  /** Rows of each kind on this page ("3+" when older pages follow). */
  counts: Record<KindFilter, string>;
  query: string;
  onQuery: (query: string) => void;
  searchRef: RefObject<HTMLInputElement | null>;
  searchFilters?: InboxFilterValues;
  filterOptions?: { agents: string[]; tools: string[] };
  filterError?: string | null;
}

/**
 * The bar above the inbox's list: the queue tabs (waiting list only), the order, the kind of call,
 * the list (Waiting, Outcome unknown, Done), the search of this page (`/` focuses it, Esc leaves
 * it), the server-side filters, and a sentence for filters of the link that could not be read.
 */
export function InboxToolbar(props: InboxToolbarProps) {
  const { status, queue, sort, kind, counts, searchFilters, filterOptions, filterError } = props;
  return (
    <div className="flex shrink-0 flex-wrap items-center gap-2 border-b border-border px-3 py-2 md:px-4">
      {status === 'pending' ? <QueueTabs current={queue} counts={props.queueCounts} cap={props.queueCap} sort={sort} /> : null}
      <SortSelect value={sort} listQuery={props.listQuery} />
      <div role="group" aria-label="Show" className="flex rounded-md border border-border p-0.5">
        {KIND_FILTERS.map((filter) => (
          <button
            key={filter.key}
            type="button"
            aria-pressed={kind === filter.key}
            onClick={() => props.onKind(filter.key)}
            className={cn(
              'rounded px-2.5 py-1 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
              kind === filter.key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
            )}
          >
            {filter.label} <span className="text-xs text-muted-foreground">{counts[filter.key]}</span>
          </button>
        ))}
      </div>
      <InboxLists current={status} />
      <div className="relative min-w-40 flex-1 sm:max-w-xs">
        <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
        <label htmlFor="inbox-search" className="sr-only">
          Filter the calls on this page by tool, agent, requester or arguments
        </label>
        <Input
          id="inbox-search"
          ref={props.searchRef}
          type="search"
          value={props.query}
          onChange={(event) => props.onQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') event.currentTarget.blur();
          }}
          placeholder="Search  ( / )"
          className="pl-8"
        />
      </div>
      {searchFilters && filterOptions ? (
        <div className="w-full">
          <InboxFilters list={status} values={searchFilters} options={filterOptions} sort={sort} />
        </div>
      ) : null}
      {filterError ? (
        <p role="alert" className="w-full text-sm text-destructive" data-testid="inbox-filters-error">
          {filterError}
        </p>
      ) : null}
    </div>
  );
}

/** Whether a call matches the quick search: every word of `query` in its tool, agent, chain, requester or arguments. */
export function matchesSearch(item: InboxItem, query: string, people: People): boolean {
  if (!query) return true;
  const haystack = [item.toolName, item.agentId, item.chain.join(' '), personName(item.requester, people), item.requester, summarizeArgs(item.args, 500)]
    .join(' ')
    .toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .every((word) => haystack.includes(word));
}
