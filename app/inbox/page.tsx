import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox/inbox-view';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { inboxQuerySchema, listInbox } from '@/lib/inbox/queries';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage({ searchParams }: { searchParams: Promise<{ status?: string; cursor?: string }> }) {
  const reviewer = await requirePageActor(['reviewer', 'admin'], '/inbox');
  const params = await searchParams;
  const status = params.status === 'unknown' ? 'unknown' : 'pending';
  const query = inboxQuerySchema.parse({ status, cursor: params.cursor?.slice(0, 200) });
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const { items, nextCursor } = await listInbox(query).catch(() => listInbox({ ...query, cursor: undefined }));
  const people = await displayNames([reviewer.id, ...items.map((item) => item.requester)]);
  return <InboxView items={items} status={status} nextCursor={nextCursor} olderPage={Boolean(query.cursor)} viewer={{ id: reviewer.id, name: reviewer.name, role: reviewer.role }} people={people} />;
}
