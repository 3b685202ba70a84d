'use client';

import { Search } from 'lucide-react';
import { useRouter } from 'next/navigation';
import type { RefObject } from 'react';
import { InboxFilters, type InboxFilterValues } from './inbox-filters';
import { InboxLists } from './lists';
import { QueueTabs } from './queues';
import { SortSelect } from './sort';
import type { InboxQueue } from '@/lib/inbox/queries';
import type { InboxSort } from '@/lib/inbox/sorts';
import { cn } from '@/components/ui/cn';
import { Input } from '@/components/ui/textarea';

/** Which kinds of call the list shows (a filter of the page in hand; its counts are the server's). */
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
  /** Calls of each kind (waiting list: counted on the server under the filters; outcome unknown: this page, "3+" when older pages follow). */
  counts: Record<KindFilter, string>;
  /** The search's words in the URL (`?q=`). */
  search: string;
  searchRef: RefObject<HTMLInputElement | null>;
  searchFilters?: InboxFilterValues;
  filterOptions?: { agents: string[]; tools: string[] };
  filterError?: string | null;
}

/**
 * The bar above the inbox's list, in two rows at desktop width: the queue tabs (waiting list only),
 * the lists (Waiting, Outcome unknown, Done) and the search; then the order, the kind of call and the
 * server-side filters (whose panel opens below them), and a sentence for filters of the link that
 * could not be read.
 */
export function InboxToolbar(props: InboxToolbarProps) {
  const { status, queue, sort, kind, counts, searchFilters, filterOptions, filterError } = props;
  // What the filter form keeps of the list: its queue and search (the order it keeps itself).
  const keep = Object.fromEntries([...props.listQuery].filter(([key]) => key === 'queue' || key === 'q'));
  return (
    <div className="flex shrink-0 flex-col gap-2 border-b border-border px-3 py-2 md:px-4" data-testid="inbox-toolbar">
      <div className="flex flex-wrap items-center gap-2">
        {status === 'pending' ? <QueueTabs current={queue} counts={props.queueCounts} cap={props.queueCap} sort={sort} keep={props.listQuery} /> : null}
        <InboxLists current={status} />
        <SearchBox search={props.search} listQuery={props.listQuery} searchRef={props.searchRef} />
      </div>
      <div className="flex flex-wrap items-start gap-2">
        <SortSelect value={sort} listQuery={props.listQuery} />
        <div role="group" aria-label="Show" className="flex rounded-md border border-border p-0.5">
          {KIND_FILTERS.map((filter) => (
            <button
              key={filter.key}
              type="button"
              aria-pressed={kind === filter.key}
              onClick={() => props.onKind(filter.key)}
              className={cn(
                'rounded px-2.5 py-1 text-sm whitespace-nowrap focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                kind === filter.key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
              )}
            >
              {filter.label} <span className="text-xs text-muted-foreground">{counts[filter.key]}</span>
            </button>
          ))}
        </div>
        {searchFilters && filterOptions ? (
          <div className="min-w-0 flex-1">
            <InboxFilters list={status} values={searchFilters} options={filterOptions} sort={sort} keep={keep} />
          </div>
        ) : null}
      </div>
      {filterError ? (
        <p role="alert" className="w-full text-sm text-destructive" data-testid="inbox-filters-error">
          {filterError}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The search box: a GET search of every waiting call on the server (`?q=`, with the queue, order
 * and filters kept; a new search starts at the first page). Enter searches; an empty search shows
 * every call again. `/` focuses it, Esc leaves it.
 */
function SearchBox({ search, listQuery, searchRef }: { search: string; listQuery: URLSearchParams; searchRef: RefObject<HTMLInputElement | null> }) {
  const router = useRouter();
  return (
    <form
      role="search"
      action="/inbox"
      method="get"
      className="relative min-w-48 flex-1 sm:max-w-sm"
      onSubmit={(event) => {
        event.preventDefault();
        const words = String(new FormData(event.currentTarget).get('q') ?? '').trim();
        const params = new URLSearchParams([...listQuery].filter(([key]) => key !== 'q' && key !== 'cursor'));
        if (words) params.set('q', words);
        router.push(params.size > 0 ? `/inbox?${params}` : '/inbox');
      }}
    >
      <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
      <label htmlFor="inbox-search" className="sr-only">
        Search every waiting call by tool, agent, requester or arguments
      </label>
      <Input
        // A new search from the URL (back, a link) shows in the box.
        key={search}
        id="inbox-search"
        name="q"
        ref={searchRef}
        type="search"
        defaultValue={search}
        maxLength={200}
        onKeyDown={(event) => {
          if (event.key === 'Escape') event.currentTarget.blur();
        }}
        placeholder="Search all calls  ( / )"
        className="pl-8"
      />
    </form>
  );
}
