import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox/inbox-view';
import { currentReviewer, currentUser, displayName } from '@/lib/auth/demo';
import { inboxQuerySchema, listInbox } from '@/lib/inbox/queries';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage({ searchParams }: { searchParams: Promise<{ status?: string }> }) {
  const reviewer = currentReviewer();
  const status = (await searchParams).status === 'unknown' ? 'unknown' : 'pending';
  const { items } = await listInbox(inboxQuerySchema.parse({ status }));
  const people = Object.fromEntries(
    [reviewer.id, currentUser().id, ...items.map((item) => item.requester)].map((id) => [id, displayName(id)]),
  );
  return <InboxView items={items} status={status} viewer={{ id: reviewer.id, name: displayName(reviewer.id) }} people={people} />;
}
