import 'server-only';
import type { AgentChunk } from '@/lib/agent/chunks';
import { prisma } from '@/lib/store/db';
import { notifications } from '@/lib/store/listen';

/** Longest a tail waits for a NOTIFY before it looks at the log anyway, in ms (a safety net only). */
const TAIL_RECHECK_MS = 2_000;

/**
 * The thread's active segment, if any: a top-level run whose latest `start` event has no `finish`
 * after it. Every segment begins with `start` and ends with `finish` (crash recovery writes one),
 * so this needs no in-process registry and works from any server.
 *
 * @returns the run, the assistant message the segment streams into, the id of the segment's `start`
 *   event and of the first `start` of that message (earlier segments of it), or null
 */
export async function findActiveSegment(
  threadId: string,
): Promise<{ runId: string; messageId: string; startEventId: bigint; messageStartEventId: bigint } | null> {
  const rows = await prisma().$queryRaw<{ run_id: string; start_id: bigint }[]>`
    SELECT e.run_id, max(e.id) FILTER (WHERE e.chunk->>'type' = 'start') AS start_id
    FROM run_events e JOIN runs r ON r.id = e.run_id
    WHERE r.thread_id = ${threadId} AND r.parent_run_id IS NULL
    GROUP BY e.run_id
    HAVING max(e.id) FILTER (WHERE e.chunk->>'type' = 'start') >
           coalesce(max(e.id) FILTER (WHERE e.chunk->>'type' = 'finish'), 0)
    ORDER BY start_id DESC
    LIMIT 1`;
  if (!rows[0]) return null;
  const { run_id: runId, start_id: startEventId } = rows[0];
  const start = await prisma().runEvent.findUniqueOrThrow({ where: { id: startEventId } });
  const messageId = (start.chunk as unknown as Extract<AgentChunk, { type: 'start' }>).payload.messageId;
  const [first] = await prisma().$queryRaw<{ id: bigint }[]>`
    SELECT min(id) AS id FROM run_events
    WHERE run_id = ${runId} AND chunk->>'type' = 'start' AND chunk->'payload'->>'messageId' = ${messageId}`;
  return { runId, messageId, startEventId, messageStartEventId: first?.id ?? startEventId };
}

/**
 * Replays a run's event log from `fromEventId` (inclusive) and follows it live until the active
 * segment's `finish` chunk (the first `finish` at or after `untilAfterEventId`), waking on
 * PostgreSQL NOTIFY. With `messageId`, only segments streaming into that message are replayed.
 * Cancelling the stream only stops reading. When a takeover (lib/agent/takeover.ts) drops a step
 * this reader already got part of, the stream errors: the reader attaches again for a clean replay.
 */
export function tailRunEvents(input: {
  runId: string;
  fromEventId: bigint;
  untilAfterEventId?: bigint;
  messageId?: string;
}): ReadableStream<AgentChunk> {
  let next = input.fromEventId;
  let currentMessageId: string | undefined;
  // Whether this reader got a `step-start` with no `step-finish` yet (a takeover drops such a step).
  let inUnfinishedStep = false;
  let wake: (() => void) | null = null;
  let unsubscribe: (() => void) | null = null;
  let cancelled = false;
  return new ReadableStream<AgentChunk>({
    async start() {
      unsubscribe = await notifications().subscribe('countersign_run_events', (runId) => {
        if (runId === input.runId) wake?.();
      });
    },
    async pull(controller) {
      for (;;) {
        if (cancelled) return;
        const events = await prisma().runEvent.findMany({
          where: { runId: input.runId, id: { gte: next } },
          orderBy: { id: 'asc' },
          take: 500,
        });
        if (events.length > 0) {
          next = events.at(-1)!.id + BigInt(1);
          for (const event of events) {
            const chunk = event.chunk as unknown as AgentChunk;
            if (chunk.type === 'start') currentMessageId = chunk.payload.messageId;
            if (input.messageId && currentMessageId !== input.messageId) continue;
            // Another server took the run over and dropped the unfinished step this reader already
            // got part of: end the stream with an error, so the reader attaches again and replays
            // the message as the log now has it (the step once, as it is run again).
            if (chunk.type === 'start' && chunk.payload.takeover && inUnfinishedStep) {
              unsubscribe?.();
              controller.error(new Error('The run continues on another server; attach again to replay it.'));
              return;
            }
            if (chunk.type === 'step-start') inUnfinishedStep = true;
            if (chunk.type === 'step-finish') inUnfinishedStep = false;
            const closesSegment = chunk.type === 'finish' && event.id >= (input.untilAfterEventId ?? BigInt(0));
            // Earlier segments of the message end with their own `finish`; only the active one closes.
            if (chunk.type === 'finish' && !closesSegment) continue;
            controller.enqueue(chunk);
            if (closesSegment) {
              unsubscribe?.();
              controller.close();
              return;
            }
          }
          return;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, TAIL_RECHECK_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    },
    cancel() {
      cancelled = true;
      wake?.();
      unsubscribe?.();
    },
  });
}
