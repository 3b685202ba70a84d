import type { ModelMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import type { AgentChunk } from '@/lib/agent/chunks';
import type { PendingCall, RunRecord, RunState } from '@/lib/agent/store';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { insertEvents, jsonb, seconds, toPendingCall, toRunRecord } from './rows';

/**
 * The statements of crash recovery (lib/agent/recovery.ts, lib/agent/takeover.ts): finding runs
 * whose process died, taking over one that died in a model step, and failing one that died while a
 * tool may have run. Not on the hot path, so they may read before they write.
 */

/**
 * Top-level runs whose lease ran out before `before` while something of theirs still runs (a run or
 * child `running`, or a claimed call not yet executed): the recovery sweep's work list, oldest
 * lease first (AgentStore.listAbandonedRuns).
 */
export async function listAbandonedRuns(db: PrismaClient, { before, limit }: { before: Date; limit: number }) {
  return db.$queryRaw<{ runId: string; threadId: string; agentId: string }[]>`
    SELECT r.id AS "runId", r.thread_id AS "threadId", r.agent_id AS "agentId"
    FROM runs r
    WHERE r.parent_run_id IS NULL
      AND r.lease_expires_at < ${before}
      AND (
        EXISTS (SELECT 1 FROM runs c WHERE c.status = 'running' AND (c.id = r.id OR c.id IN (
          SELECT p.child_run_id FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.child_run_id IS NOT NULL)))
        OR EXISTS (SELECT 1 FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.status IN ('approved', 'resumed'))
      )
    ORDER BY r.lease_expires_at
    LIMIT ${limit}`;
}

/**
 * Takes over a run whose process died in a model step (AgentStore.takeOverRun): renews its expired
 * lease only while no tool of it had started (no `startedCalls`, no claimed or waiting call), and
 * drops the unfinished step's events, so the step is run again from the last committed one.
 * @returns the run as it is now, or null when it is not the caller's to continue
 */
export async function takeOverRun(db: PrismaClient, { runId, leaseMs }: { runId: string; leaseMs: number }): Promise<RunRecord | null> {
  // The unfinished step's events: from the log's last `step-start` on, when no `step-finish`
  // follows it (a model step writes nothing durable before its end).
  const [taken] = await db.$queryRaw<{ id: string }[]>`
    WITH taken AS (
      UPDATE runs r SET lease_expires_at = now() + make_interval(secs => ${seconds(leaseMs)}), updated_at = now()
      WHERE r.id = ${runId} AND r.parent_run_id IS NULL AND r.status = 'running' AND r.state IS NOT NULL
        AND r.lease_expires_at <= now()
        -- A run someone stopped is not continued: it ends as interrupted.
        AND r.stop_requested_at IS NULL
        AND coalesce(jsonb_array_length(r.state -> 'startedCalls'), 0) = 0
        AND NOT EXISTS (
          SELECT 1 FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.status IN ('approved', 'resumed', 'waiting'))
      RETURNING r.id
    ),
    unfinished AS (
      SELECT s.id FROM run_events s
      WHERE s.run_id = ${runId} AND s.chunk ->> 'type' = 'step-start'
        AND NOT EXISTS (SELECT 1 FROM run_events f WHERE f.run_id = s.run_id AND f.id > s.id AND f.chunk ->> 'type' = 'step-finish')
      ORDER BY s.id DESC LIMIT 1
    ),
    dropped AS (
      DELETE FROM run_events e USING taken, unfinished WHERE e.run_id = taken.id AND e.id >= unfinished.id
    )
    SELECT id FROM taken`;
  if (!taken) return null;
  return toRunRecord(await db.run.findUniqueOrThrow({ where: { id: runId } }));
}

/**
 * Fails a top-level run whose process died while a tool may have run (AgentStore.markRunInterrupted):
 * its claimed calls become `unknown` (never re-executed), open ones `superseded`, the run and its
 * children `failed`, with the events `events` builds and the memory `messages` builds, in one
 * statement that applies only while the lease is expired and the claimed set is unchanged.
 * @returns the calls whose outcome became unknown; [] when a live process holds the lease
 * @throws Error when the claimed set kept changing over 5 attempts
 */
export async function markRunInterrupted(
db: PrismaClient,
{
  rootRunId,
  error,
  events,
  messages,
}: {
  rootRunId: string;
  error: string;
  events: (unknownCalls: PendingCall[]) => AgentChunk[];
  messages: (input: { state: RunState; rows: PendingCall[] }) => ModelMessage[];
}): Promise<PendingCall[]> {
  // The events name the calls whose outcome becomes unknown, so those are read first; the write
  // applies only if the claimed set is still the same (else read again), so no transaction spans
  // the two.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const claimed = (await db.pendingToolCall.findMany({ where: { rootRunId, status: { in: ['approved', 'resumed'] } }, orderBy: { id: 'asc' } })).map(
      (row) => toPendingCall({ ...row, status: 'unknown' }),
    );
    const ids = claimed.map((call) => call.id);
    // What the run did stays in the thread's memory, with a result for every call (behaviour §5):
    // computed from its last state and its own rows as this statement leaves them.
    const top = await db.run.findUnique({ where: { id: rootRunId }, select: { state: true, threadId: true } });
    const marked: Record<string, string> = { approved: 'unknown', resumed: 'unknown', pending: 'superseded', waiting: 'superseded' };
    const own = (await db.pendingToolCall.findMany({ where: { runId: rootRunId }, orderBy: { createdAt: 'asc' } })).map((row) =>
      toPendingCall({ ...row, status: marked[row.status] ?? row.status }),
    );
    const state = (top?.state as unknown as RunState | null) ?? null;
    const remembered = state ? messages({ state, rows: own }).map((message) => ({ id: randomUUID(), role: message.role, content: message.content })) : [];
    // Lock order as the claims': the tree's pending rows first, then the top-level run, whose lease
    // a live process (or a new claim) renews; a live lease makes this a no-op.
    const [result] = await db.$queryRaw<{ expired: boolean; applied: boolean }[]>`
      WITH calls AS (SELECT id, status FROM pending_tool_calls WHERE root_run_id = ${rootRunId} ORDER BY id FOR UPDATE),
      top AS (
        SELECT id FROM runs
        WHERE id = ${rootRunId} AND (lease_expires_at IS NULL OR lease_expires_at <= now()) AND (SELECT count(*) FROM calls) >= 0
        FOR UPDATE
      ),
      ok AS (
        SELECT id FROM top
        WHERE (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM calls WHERE status IN ('approved', 'resumed')) = ${ids}::text[]
      ),
      unknown AS (
        UPDATE pending_tool_calls SET status = 'unknown'
        WHERE root_run_id = ${rootRunId} AND status IN ('approved', 'resumed') AND EXISTS (SELECT 1 FROM ok)
      ),
      -- Questions and approvals still open in the tree can no longer continue anything.
      superseded AS (
        UPDATE pending_tool_calls SET status = 'superseded'
        WHERE root_run_id = ${rootRunId} AND status IN ('pending', 'waiting') AND EXISTS (SELECT 1 FROM ok)
      ),
      failed AS (
        UPDATE runs SET status = 'failed', error = ${error}, state = NULL, updated_at = now()
        WHERE (id = ${rootRunId} OR id IN (SELECT child_run_id FROM pending_tool_calls WHERE root_run_id = ${rootRunId} AND child_run_id IS NOT NULL))
          AND status IN ('running', 'suspended') AND EXISTS (SELECT 1 FROM ok)
      ),
      events AS (${insertEvents(rootRunId, events(claimed), Prisma.sql`EXISTS (SELECT 1 FROM ok)`)}),
      memory AS (
        INSERT INTO messages (id, thread_id, role, content, run_id)
        SELECT m.value ->> 'id', ${top?.threadId ?? ''}, m.value ->> 'role', m.value -> 'content', ${rootRunId}
        FROM jsonb_array_elements(${jsonb(remembered)}) WITH ORDINALITY AS m(value, ord)
        WHERE EXISTS (SELECT 1 FROM ok)
        ORDER BY m.ord
      )
      SELECT EXISTS (SELECT 1 FROM top) AS expired, EXISTS (SELECT 1 FROM ok) AS applied`;
    if (!result.expired) return [];
    if (result.applied) return claimed;
  }
  throw new Error(`Run ${rootRunId} kept changing while it was being marked interrupted`);
}
