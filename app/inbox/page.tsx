import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox/inbox-view';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { inboxQuerySchema, listInbox } from '@/lib/inbox/queries';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage({ searchParams }: { searchParams: Promise<{ status?: string }> }) {
  const reviewer = await requirePageActor(['reviewer', 'admin'], '/inbox');
  const status = (await searchParams).status === 'unknown' ? 'unknown' : 'pending';
  const { items } = await listInbox(inboxQuerySchema.parse({ status }));
  const people = await displayNames([reviewer.id, ...items.map((item) => item.requester)]);
  return <InboxView items={items} status={status} viewer={{ id: reviewer.id, name: reviewer.name, role: reviewer.role }} people={people} />;
}
