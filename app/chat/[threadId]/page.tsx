import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ChatShell } from '@/components/chat/chat-shell';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { findActiveSegment } from '@/lib/chat/tail';
import { listThreads, loadThreadUIMessages, peopleOnCards } from '@/lib/chat/threads';
import { chatAgents, defaultAgentId } from '@/lib/runs/agents';
import { prisma } from '@/lib/store/db';
import { THREAD_ID } from '@/lib/chat/limits';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Chat' };

export default async function ChatPage({
  params,
  searchParams,
}: {
  params: Promise<{ threadId: string }>;
  searchParams: Promise<{ agent?: string }>;
}) {
  const { threadId } = await params;
  if (!THREAD_ID.test(threadId)) notFound();
  const user = await requirePageActor(['user', 'reviewer', 'admin'], `/chat/${encodeURIComponent(threadId)}`);
  const [threads, messages, active, thread] = await Promise.all([
    listThreads({ resourceId: user.id }),
    loadThreadUIMessages({ threadId, resourceId: user.id }),
    findActiveSegment(threadId),
    prisma().thread.findUnique({ where: { id: threadId }, select: { agentId: true } }),
  ]);
  // Someone else's thread looks exactly like a missing page.
  if (thread && messages === null) notFound();
  // An existing thread keeps its agent; a new one may pick one with ?agent=.
  const requested = (await searchParams).agent;
  const offered = chatAgents();
  const agentId = thread?.agentId ?? (offered.some((agent) => agent.id === requested) ? requested! : defaultAgentId());
  // null also means "no rows yet": `/` sends people to a fresh id, which is an empty new chat.
  const people = await displayNames([user.id, ...peopleOnCards(messages ?? [])]);
  return (
    <ChatShell
      threadId={threadId}
      threads={threads}
      initialMessages={messages ?? []}
      resumeOnMount={active !== null && messages !== null}
      agent={offered.find((agent) => agent.id === agentId)!}
      agents={offered}
      viewer={{ id: user.id, name: user.name, role: user.role }}
      people={people}
    />
  );
}
