import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ChatShell } from '@/components/chat/chat-shell';
import { displayNames } from '@/lib/auth/session';
import { findActiveSegment } from '@/lib/chat/tail';
import { listThreads, loadThreadUIMessages, peopleOnCards } from '@/lib/chat/threads';
import { chatAgents, defaultAgentId } from '@/lib/runs/agents';
import { threadVersion } from '@/lib/store/thread-version';
import { chatThread } from './access';

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
  // Checked by the layout already (404 before the loading outline streams); this is its answer.
  const { user, thread } = await chatThread(threadId);
  // Read before the messages: whatever they miss changes the version, and the live feed, which
  // compares it once it listens, tells the chat to catch up (components/chat/thread-activity.ts).
  const version = thread ? await threadVersion(threadId) : null;
  const [threads, messages, active] = await Promise.all([
    listThreads({ resourceId: user.id }),
    loadThreadUIMessages({ threadId, resourceId: user.id }),
    findActiveSegment(threadId),
  ]);
  // Deleted since the layout looked: still a missing page.
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
      version={version}
      resumeOnMount={active !== null && messages !== null}
      agent={offered.find((agent) => agent.id === agentId)!}
      agents={offered}
      viewer={{ id: user.id, name: user.name, role: user.role }}
      people={people}
    />
  );
}
