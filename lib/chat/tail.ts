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
 * @returns the run and the id of the segment's `start` event, or null when nothing is streaming
 */
export async function findActiveSegment(threadId: string): Promise<{ runId: string; startEventId: bigint } | null> {
  const rows = await prisma().$queryRaw<{ run_id: string; start_id: bigint }[]>`
    SELECT e.run_id, max(e.id) FILTER (WHERE e.chunk->>'type' = 'start') AS start_id
    FROM run_events e JOIN runs r ON r.id = e.run_id
    WHERE r.thread_id = ${threadId} AND r.parent_run_id IS NULL
    GROUP BY e.run_id
    HAVING max(e.id) FILTER (WHERE e.chunk->>'type' = 'start') >
           coalesce(max(e.id) FILTER (WHERE e.chunk->>'type' = 'finish'), 0)
    ORDER BY start_id DESC
    LIMIT 1`;
  return rows[0] ? { runId: rows[0].run_id, startEventId: rows[0].start_id } : null;
}

/**
 * Replays a run's event log from `fromEventId` (inclusive) and follows it live until the segment's
 * `finish` chunk, waking on PostgreSQL NOTIFY. Cancelling the stream only stops reading.
 */
export function tailRunEvents(input: { runId: string; fromEventId: bigint }): ReadableStream<AgentChunk> {
  let next = input.fromEventId;
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
            controller.enqueue(chunk);
            if (chunk.type === 'finish') {
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
