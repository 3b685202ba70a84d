import 'server-only';
import { z } from 'zod';
import { displayNames } from '@/lib/auth/session';
import { queryText } from '@/lib/http/query';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { ApiError } from '@/lib/http/errors';
import type { People } from '@/lib/present/describe';

/** `GET /api/inbox/outcome`'s query: the call as people address it (the top-level run and tool call id, as in the inbox and the audit). */
export const callOutcomeQuerySchema = z.strictObject({
  runId: queryText(100).min(1),
  toolCallId: queryText(300).min(1),
});

/** What became of a call that no longer waits (or that it still waits, and on whom). */
export interface CallOutcome {
  /** The pending row's status: `pending` (still waiting; taken by `assignedTo`), `approved`, `declined`, `resumed`, `unknown`, … */
  status: string;
  /** Who works on it while it waits (claimed or assigned), or null. */
  assignedTo: string | null;
  /** The latest decision on it (a quorum vote counts), or null when nobody decided yet. */
  decision: {
    kind: string;
    approved: boolean | null;
    actorId: string;
    actorRole: string;
    reason: string | null;
    /** ISO 8601 */
    at: string;
    /** The arguments the tool ran with, when the approver edited them (null: as asked). */
    editedArgs: unknown;
  } | null;
  /** The tool's result chunk after the decision: its output, or its error text; null before it finished (or when it never ran). */
  result: { output?: unknown; errorText?: string } | null;
  /** Names and emails of the people named (decider, assignee). */
  people: People;
}

/**
 * What became of one call: its status, the latest decision with who made it, and what the tool
 * returned — for a call that left a reviewer's open inbox ("No longer waiting", which then says who
 * decided) and for a decided call opened read-only from the Done tab. Three indexed reads: the
 * pending row by (root_run_id, root_tool_call_id), its decisions by (pending_call_id, created_at),
 * and the tool's result among its run's events (run_id, id), newest first.
 *
 * @param call the top-level run id and tool call id (as `InboxItem.runId`/`toolCallId` and `AuditEntry.runId`/`toolCallId`)
 * @throws ApiError 404 NOT_FOUND when there is no such approval or question
 */
export async function callOutcome(call: { runId: string; toolCallId: string }, db: PrismaClient = prisma()): Promise<CallOutcome> {
  const [row] = await db.$queryRaw<{ id: string; runId: string; toolCallId: string; status: string; assignedTo: string | null }[]>`
    SELECT p.id, p.run_id AS "runId", p.tool_call_id AS "toolCallId", p.status, p.assigned_to AS "assignedTo" FROM pending_tool_calls p
    WHERE p.root_run_id = ${call.runId} AND p.root_tool_call_id = ${call.toolCallId} AND p.kind IN ('approval', 'suspension')
    ORDER BY p.created_at DESC LIMIT 1`;
  if (!row) throw new ApiError(404, 'NOT_FOUND', 'No such call.');
  const [[decision], [result]] = await Promise.all([
    db.$queryRaw<NonNullable<CallOutcome['decision']>[]>`
      SELECT d.kind, d.approved, d.actor_id AS "actorId", d.actor_role AS "actorRole", d.reason, d.created_at AS at, d.edited_args AS "editedArgs"
      FROM decisions d WHERE d.pending_call_id = ${row.id} ORDER BY d.created_at DESC LIMIT 1`,
    // The run's event log holds the runtime's chunks (lib/agent): `tool-result` { payload: { toolCallId, result } }, `tool-error` { payload: { error } }.
    db.$queryRaw<{ chunk: { type: string; payload?: { result?: unknown; error?: unknown } } }[]>`
      SELECT e.chunk FROM run_events e
      WHERE e.run_id = ${row.runId} AND e.chunk->'payload'->>'toolCallId' = ${row.toolCallId}
        AND e.chunk->>'type' IN ('tool-result', 'tool-error')
      ORDER BY e.id DESC LIMIT 1`,
  ]);
  const people = await displayNames([...(decision ? [decision.actorId] : []), ...(row.assignedTo ? [row.assignedTo] : [])]);
  return {
    status: row.status,
    assignedTo: row.assignedTo,
    decision: decision ? { ...decision, at: new Date(decision.at).toISOString() } : null,
    result: result
      ? result.chunk.type === 'tool-error'
        ? { errorText: typeof result.chunk.payload?.error === 'string' ? result.chunk.payload.error : JSON.stringify(result.chunk.payload?.error ?? '') }
        : { output: result.chunk.payload?.result }
      : null,
    people,
  };
}
