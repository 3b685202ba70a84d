import { Inbox as InboxIcon } from 'lucide-react';
import Link from 'next/link';
import { QUEUE_TABS } from './queues';
import type { InboxItem } from './types';
import type { InboxQueue } from '@/lib/inbox/queries';
import type { InboxSort } from '@/lib/inbox/sorts';
import { callTitle } from '@/lib/present/describe';

/** The inbox without a row: why (filters, an empty list or queue), and what shows up here. */
export function InboxEmpty({ filtered, status, queue }: { filtered: boolean; status: 'pending' | 'unknown'; queue: InboxQueue }) {
  return (
    <div data-testid="inbox-empty" className="flex flex-1 flex-col items-center justify-center gap-2 p-8 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
        <InboxIcon className="size-6" aria-hidden />
      </div>
      <p className="text-lg font-semibold">
        {filtered ? 'No calls match these filters' : status === 'unknown' ? 'No call with an unknown outcome' : 'Nothing waiting — nice'}
      </p>
      <p className="max-w-sm text-sm text-muted-foreground">
        {status === 'pending' && !filtered ? QUEUE_TABS.find((tab) => tab.key === queue)?.empty : 'New approvals and questions from agents show up here by themselves.'}
      </p>
    </div>
  );
}

/**
 * The links under a keyset-paged list: back to its first page, and on to the next (its cursor
 * with the same queue, order and filters, since a cursor is only valid with those).
 */
export function InboxPager({ listQuery, nextCursor, olderPage, sort }: { listQuery: URLSearchParams; nextCursor: string | null; olderPage: boolean; sort: InboxSort }) {
  if (!nextCursor && !olderPage) return null;
  return (
    <nav aria-label="Pages" className="flex gap-2 border-t border-border p-3 text-sm">
      {olderPage ? (
        <Link href={`/inbox?${listQuery}`} className="text-primary hover:underline">
          {sort === 'newest' ? '← Newest' : '← First page'}
        </Link>
      ) : null}
      {nextCursor ? (
        <Link href={`/inbox?${new URLSearchParams([...listQuery, ['cursor', nextCursor]])}`} className="ml-auto text-primary hover:underline" data-testid="inbox-older">
          {sort === 'newest' ? 'Older calls →' : 'Next page →'}
        </Link>
      ) : null}
    </nav>
  );
}

/** The detail of a call whose outcome is unknown (its server stopped while it ran): what that means, and its arguments. */
export function UnknownOutcome({ item }: { item: InboxItem }) {
  return (
    <div className="border-t border-border bg-muted/20 p-4 text-sm lg:absolute lg:inset-y-0 lg:right-0 lg:left-[26rem] lg:overflow-y-auto lg:border-t-0 lg:bg-background">
      <h2 className="font-semibold">{callTitle(item)}</h2>
      <p className="mt-2 text-muted-foreground">
        The server stopped while this call was running, so whether it finished is unknown. It was not retried and never will be automatically: check the system it
        acts on before asking the agent again.
      </p>
      <pre className="mt-3 overflow-x-auto rounded-md bg-muted p-3 font-mono text-xs">{JSON.stringify(item.args, null, 2)}</pre>
    </div>
  );
}
