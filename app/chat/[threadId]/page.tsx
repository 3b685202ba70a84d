import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ChatShell } from '@/components/chat/chat-shell';
import { currentReviewer, currentUser, displayName } from '@/lib/auth/demo';
import { listThreads, loadThreadUIMessages } from '@/lib/chat/threads';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Chat' };

/** Thread ids are client-minted UUIDs or similar short tokens (the API accepts up to 100 chars). */
const THREAD_ID = /^[A-Za-z0-9_-]{1,100}$/;

export default async function ChatPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  if (!THREAD_ID.test(threadId)) notFound();
  const user = currentUser();
  const [threads, messages] = await Promise.all([
    listThreads({ resourceId: user.id }),
    loadThreadUIMessages({ threadId, resourceId: user.id }),
  ]);
  // null also means "no rows yet": `/` sends people to a fresh id, which is an empty new chat.
  const people = Object.fromEntries([user.id, currentReviewer().id].map((id) => [id, displayName(id)]));
  return (
    <ChatShell
      threadId={threadId}
      threads={threads}
      initialMessages={messages ?? []}
      viewer={{ id: user.id, name: displayName(user.id) }}
      people={people}
    />
  );
}
