import 'server-only';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { requirePageActor } from '@/lib/auth/session';
import { THREAD_ID } from '@/lib/chat/limits';
import { reviewableThread } from '@/lib/inbox/context';

/**
 * Who opens the reviewer's read-only view of a thread, and the thread, checked once per request: the
 * layout calls it before the loading outline streams, so a refusal is an HTTP answer — 404 (an id
 * the chat never makes, an unknown or deleted thread, one without any approval or question) or a
 * redirect (the owner goes to their own chat) — and the page reads the same answer.
 */
export const reviewedThread = cache(async (threadId: string) => {
  const viewer = await requirePageActor(['reviewer', 'admin']);
  if (!THREAD_ID.test(threadId)) notFound();
  const thread = await reviewableThread(threadId);
  if (!thread) notFound();
  if (thread.resourceId === viewer.id) redirect(`/chat/${encodeURIComponent(threadId)}`);
  return { viewer, thread };
});
