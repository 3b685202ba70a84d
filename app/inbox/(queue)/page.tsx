import type { Metadata } from 'next';
import { DoneView } from '@/components/inbox/done-view';
import { filterValues, unreadFiltersNote, withoutUnread, type InboxFilterValues } from '@/components/inbox/filter-values';
import { InboxView } from '@/components/inbox/inbox-view';
import { auditQueryFieldsSchema, listAudit } from '@/lib/audit/queries';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { parseLeavingOut } from '@/lib/http/query';
import { filterOptions } from '@/lib/inbox/filter-options';
import { getInboxItem, inboxQueueCounts, inboxQuerySchema, INBOX_QUEUES, listInbox, QUEUE_COUNT_CAP, type InboxQueue } from '@/lib/inbox/queries';
import { sortValue } from '@/lib/inbox/sorts';
import { prisma } from '@/lib/store/db';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

/** The set filters only (a form may send empty fields), for the query schemas. */
function setFilters(filters: InboxFilterValues, keys: (keyof InboxFilterValues)[]) {
  return Object.fromEntries(keys.filter((key) => filters[key]).map((key) => [key, filters[key]]));
}


export default async function InboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const reviewer = await requirePageActor(['reviewer', 'admin']);
  const params = await searchParams;
  const cursor = typeof params.cursor === 'string' ? params.cursor.slice(0, 200) : undefined;
  const filters = filterValues(params);
  const viewer = { id: reviewer.id, name: reviewer.name, role: reviewer.role };
  const options = filterOptions();

  if (params.view === 'done') {
    const { data: query, leftOut } = parseLeavingOut(auditQueryFieldsSchema, { ...setFilters(filters, ['toolName', 'agentId', 'requester', 'person', 'kind', 'from', 'to']), limit: 50, cursor });
    // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
    const { entries, nextCursor } = await listAudit(query).catch(() => listAudit({ ...query, cursor: undefined }));
    const people = await displayNames([reviewer.id, ...entries.flatMap((entry) => [entry.actorId, entry.requester])]);
    return (
      <DoneView
        entries={entries}
        nextCursor={nextCursor}
        olderPage={Boolean(query.cursor)}
        filters={withoutUnread(filters, leftOut)}
        filterError={unreadFiltersNote(leftOut)}
        options={options}
        viewer={viewer}
        people={people}
      />
    );
  }

  const status = params.status === 'unknown' ? 'unknown' : 'pending';
  const queue: InboxQueue = status === 'pending' && INBOX_QUEUES.includes(params.queue as InboxQueue) ? (params.queue as InboxQueue) : 'all';
  const sort = sortValue(params.sort);
  // The search box's words (`?q=`), searched on the server with the filters (lib/inbox/queries.ts searchCondition).
  const search = typeof params.q === 'string' ? params.q.slice(0, 200) : '';
  const { data: query, leftOut } = parseLeavingOut(inboxQuerySchema, {
    status,
    queue,
    sort,
    cursor,
    ...setFilters(filters, ['toolName', 'agentId', 'requester', 'from', 'to']),
    ...(search.trim() ? { q: search } : {}),
  });
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const [page, queueCounts, reviewers] = await Promise.all([
    listInbox(query, undefined, reviewer).catch(() => listInbox({ ...query, cursor: undefined }, undefined, reviewer)),
    // Counted under the same filters and search as the list, so the header, the tabs and the list agree.
    inboxQueueCounts(reviewer, query, queue),
    // Who a call can be assigned to: active reviewers and admins (a deactivated account is refused).
    prisma().user.findMany({
      where: { role: { in: ['reviewer', 'admin'] }, NOT: { banned: true } },
      select: { id: true, name: true, email: true, role: true },
      orderBy: { name: 'asc' },
      take: 200,
    }),
  ]);
  const { nextCursor } = page;
  // A deep link (`?call=<id>`, as in reviewer emails) selects that call, loaded when it is not on this page.
  const linked = typeof params.call === 'string' && !params.call.includes('\0') ? params.call.slice(0, 200) : undefined;
  const linkedItem = linked && !page.items.some((item) => item.id === linked) ? await getInboxItem(linked) : null;
  const items = linkedItem ? [linkedItem, ...page.items] : page.items;
  const people = await displayNames([reviewer.id, ...items.flatMap((item) => [item.requester, ...(item.assignedTo ? [item.assignedTo] : []), ...item.approvedBy, ...item.withdrawnVotes.map((vote) => vote.userId)])]);
  // Whoever wins a decision is a reviewer, an admin or the requester: a conflict can always name them.
  for (const person of reviewers) people[person.id] ??= { name: person.name, email: person.email };
  return (
    <InboxView
      items={items}
      status={status}
      nextCursor={nextCursor}
      olderPage={Boolean(query.cursor)}
      viewer={viewer}
      people={people}
      queue={queue}
      sort={sort}
      queueCounts={queueCounts}
      queueCap={QUEUE_COUNT_CAP}
      reviewers={reviewers}
      initialCallId={linked && items.some((item) => item.id === linked) ? linked : undefined}
      search={query.q ?? ''}
      searchFilters={withoutUnread(filters, leftOut)}
      filterError={unreadFiltersNote(leftOut)}
      filterOptions={options}
    />
  );
}
