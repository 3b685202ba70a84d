import 'server-only';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { AgentChunk } from '@/lib/agent/chunks';
import { prisma } from '@/lib/store/db';
import { toUIChunks, type CountersignDataTypes } from '@/lib/ui-stream/map';

export type ChatMessage = UIMessage<unknown, CountersignDataTypes>;

export interface ThreadSummary {
  id: string;
  title: string;
  /** ISO 8601 */
  updatedAt: string;
}

/**
 * The resource's threads, newest first.
 * @param input.resourceId owner (end user id)
 * @param input.limit at most this many (default 50)
 */
export async function listThreads({ resourceId, limit = 50 }: { resourceId: string; limit?: number }): Promise<ThreadSummary[]> {
  const rows = await prisma().thread.findMany({
    where: { resourceId },
    orderBy: { updatedAt: 'desc' },
    take: limit,
    select: { id: true, title: true, updatedAt: true },
  });
  return rows.map((row) => ({ id: row.id, title: row.title, updatedAt: row.updatedAt.toISOString() }));
}

/** Rebuilds one assistant UI message by replaying a run's event log through the UI mapping. */
async function replayRun(runId: string, messageId: string): Promise<ChatMessage | null> {
  const events = await prisma().runEvent.findMany({ where: { runId }, orderBy: { id: 'asc' }, select: { chunk: true } });
  if (events.length === 0) return null;
  const chunks = events.flatMap((event) => toUIChunks(event.chunk as unknown as AgentChunk, runId));
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: ChatMessage | null = null;
  for await (const message of readUIMessageStream<ChatMessage>({
    message: { id: messageId, role: 'assistant', parts: [] },
    stream,
  })) {
    last = message;
  }
  return last;
}

/**
 * The thread as `useChat` messages: user messages from memory, each followed by the assistant
 * message its run produced (replayed from the run's event log, so pending and decided cards
 * come back after a reload).
 *
 * @returns null when the thread does not exist or is not the resource's (callers answer 404)
 */
export async function loadThreadUIMessages({ threadId, resourceId }: { threadId: string; resourceId: string }): Promise<ChatMessage[] | null> {
  const db = prisma();
  const thread = await db.thread.findUnique({ where: { id: threadId } });
  if (!thread || thread.resourceId !== resourceId) return null;
  const [userMessages, runs] = await Promise.all([
    db.message.findMany({ where: { threadId, role: 'user' }, orderBy: { seq: 'asc' } }),
    db.run.findMany({ where: { threadId, parentRunId: null }, select: { id: true, messageId: true } }),
  ]);
  const runById = new Map(runs.map((run) => [run.id, run]));
  const out: ChatMessage[] = [];
  for (const message of userMessages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    out.push({ id: message.id, role: 'user', parts: [{ type: 'text', text }] });
    const run = message.runId ? runById.get(message.runId) : undefined;
    if (!run) continue;
    const assistant = await replayRun(run.id, run.messageId);
    if (assistant) out.push(assistant);
  }
  return out;
}
