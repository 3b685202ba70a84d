import { ArrowLeft, Eye, Signature } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { ThreadTranscript } from '@/components/inbox/thread-transcript';
import { AppNav } from '@/components/ui/app-nav';
import { revealBidi } from '@/lib/present/describe';
import { displayNames } from '@/lib/auth/session';
import { loadThreadUIMessages, peopleOnCards } from '@/lib/chat/threads';
import { reviewedThread } from './access';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Chat (read-only)' };

/**
 * A requester's chat as a reviewer or admin reads it: read-only, and only for a thread holding an
 * approval or a question (pending or decided) — any other thread looks like a missing page (HTTP
 * 404). The owner is sent to their own chat. Both are decided in ./access.ts, before anything streams.
 */
export default async function ReviewThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  // Checked by the layout already (404 or redirect before the loading outline streams).
  const { viewer, thread } = await reviewedThread(threadId);
  const messages = (await loadThreadUIMessages({ threadId, resourceId: thread.resourceId })) ?? [];
  const people = await displayNames([viewer.id, thread.resourceId, ...peopleOnCards(messages)]);
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <Signature className="size-5 text-primary" aria-hidden />
        <span className="flex-1 text-sm font-semibold">Inbox</span>
        <AppNav viewer={{ id: viewer.id, name: viewer.name, role: viewer.role }} current="inbox" />
      </header>
      <main className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-4 md:p-6">
        <Link href="/inbox" className="inline-flex w-fit items-center gap-1 rounded text-sm text-primary hover:underline focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          <ArrowLeft className="size-4" aria-hidden /> Back to the inbox
        </Link>
        <div className="flex flex-col gap-1">
          <h1 className="text-lg font-semibold text-balance">
            <bdi>{revealBidi(thread.title)}</bdi>
          </h1>
          <p data-testid="thread-read-only" className="flex items-center gap-1.5 text-sm text-muted-foreground">
            <Eye className="size-4" aria-hidden /> Read-only: {people[thread.resourceId]?.name ?? 'the requester'}’s chat. Decide its calls in the inbox.
          </p>
        </div>
        <ThreadTranscript messages={messages} people={people} viewerId={viewer.id} ownerId={thread.resourceId} />
      </main>
    </div>
  );
}
