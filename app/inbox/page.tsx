import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox/inbox-view';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { inboxQueueCounts, inboxQuerySchema, INBOX_QUEUES, listInbox, QUEUE_COUNT_CAP, type InboxQueue } from '@/lib/inbox/queries';
import { prisma } from '@/lib/store/db';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage({ searchParams }: { searchParams: Promise<{ status?: string; cursor?: string; queue?: string; call?: string }> }) {
  const reviewer = await requirePageActor(['reviewer', 'admin'], '/inbox');
  const params = await searchParams;
  const status = params.status === 'unknown' ? 'unknown' : 'pending';
  const queue: InboxQueue = status === 'pending' && INBOX_QUEUES.includes(params.queue as InboxQueue) ? (params.queue as InboxQueue) : 'all';
  const query = inboxQuerySchema.parse({ status, queue, cursor: params.cursor?.slice(0, 200) });
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const [{ items, nextCursor }, queueCounts, reviewers] = await Promise.all([
    listInbox(query, undefined, reviewer.id).catch(() => listInbox({ ...query, cursor: undefined }, undefined, reviewer.id)),
    inboxQueueCounts(reviewer.id),
    prisma().user.findMany({ where: { role: { in: ['reviewer', 'admin'] } }, select: { id: true, name: true, email: true }, orderBy: { name: 'asc' }, take: 200 }),
  ]);
  const people = await displayNames([reviewer.id, ...items.flatMap((item) => [item.requester, ...(item.assignedTo ? [item.assignedTo] : [])])]);
  // Whoever wins a decision is a reviewer, an admin or the requester: a conflict can always name them.
  for (const person of reviewers) people[person.id] ??= { name: person.name, email: person.email };
  return (
    <InboxView
      items={items}
      status={status}
      nextCursor={nextCursor}
      olderPage={Boolean(query.cursor)}
      viewer={{ id: reviewer.id, name: reviewer.name, role: reviewer.role }}
      people={people}
      queue={queue}
      queueCounts={queueCounts}
      queueCap={QUEUE_COUNT_CAP}
      reviewers={reviewers}
      initialCallId={params.call?.slice(0, 100)}
    />
  );
}
