import 'server-only';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { requirePageActor } from '@/lib/auth/session';
import { THREAD_ID } from '@/lib/chat/limits';
import { ownsThread } from '@/lib/runs/access';
import { prisma } from '@/lib/store/db';

/**
 * Who opens `/chat/{threadId}` and the thread's row, checked once per request: the layout calls it
 * before the loading outline streams, so a refusal is an HTTP redirect (not signed in) or an HTTP 404
 * (an id the chat never makes, someone else's or a deleted thread); the page reads the same answer.
 * A thread id nobody has used yet is a new chat (`thread` null): `/` sends people to a fresh id.
 */
export const chatThread = cache(async (threadId: string) => {
  const user = await requirePageActor(['user', 'reviewer', 'admin']);
  if (!THREAD_ID.test(threadId)) notFound();
  const thread = await prisma().thread.findUnique({ where: { id: threadId }, select: { resourceId: true, deletedAt: true, agentId: true } });
  // Someone else's thread looks exactly like a missing page.
  if (thread && !ownsThread(thread, user)) notFound();
  return { user, thread };
});
