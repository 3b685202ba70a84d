import type { Metadata } from 'next';
import { InboxView } from '@/components/inbox/inbox-view';
import { currentReviewer, currentUser, displayName } from '@/lib/auth/demo';
import { inboxQuerySchema, listInbox } from '@/lib/inbox/queries';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage() {
  const reviewer = currentReviewer();
  const { items } = await listInbox(inboxQuerySchema.parse({}));
  const people = Object.fromEntries(
    [reviewer.id, currentUser().id, ...items.map((item) => item.requester)].map((id) => [id, displayName(id)]),
  );
  return <InboxView items={items} viewer={{ id: reviewer.id, name: displayName(reviewer.id) }} people={people} />;
}
