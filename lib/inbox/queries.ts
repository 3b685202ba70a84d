import 'server-only';
import { z } from 'zod';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { pendingColumns, toPendingCall, type PendingRow } from '@/lib/store/prisma-store';
import { prisma } from '@/lib/store/db';
import type { ToolDescription } from '@/lib/agent/tool';
import { describeAppCall } from '@/lib/chat/describe';

/** One row of the approval inbox: a call waiting on a person. */
export interface InboxItem {
  id: string;
  /** `pending`: waiting on a person; `unknown`: its process died while it executed (never re-run). */
  status: 'pending' | 'unknown';
  runId: string;
  toolCallId: string;
  kind: 'approval' | 'suspension';
  toolName: string;
  args: unknown;
  fingerprint: string;
  approvers: 'requester' | 'reviewer';
  policy: string;
  /** Why it waits: the rule that paused it with its values, and who may decide (null on rows from before evaluations were stored). */
  why: string | null;
  /** Distinct reviewers whose approval is needed, when more than one. */
  quorum: number | null;
  /** Reviewers who approved a quorum call so far. */
  approvedBy: string[];
  /** Version of the policy rules that paused it (null: no data rule matched). */
  policyVersion: number | null;
  suspendPayload: unknown;
  /** JSON Schema (string) of the decision or the answer. */
  resumeSchema: string;
  threadId: string;
  /** Who started the run (the signed-in identity that asked; see runs.requested_by). */
  requester: string;
  agentId: string;
  chain: string[];
  /** The tool's own description of the call (null: the UI builds a generic line from the args). */
  description: ToolDescription | null;
  /** ISO 8601 */
  createdAt: string;
  /** When it is declined or escalated unless decided (ISO 8601), and which; null without a deadline. */
  deadlineAt: string | null;
  deadlineAction: 'decline' | 'escalate' | null;
  /** Set once a deadline escalated it: when, and to whom (`admin`). */
  escalatedAt: string | null;
  assignedToRole: string | null;
}

export const inboxQuerySchema = z.object({
  status: z.enum(['pending', 'unknown']).default('pending'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: z.string().max(200).optional(),
  agentId: z.string().max(100).optional(),
  toolName: z.string().max(100).optional(),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/**
 * The statement behind one inbox page: calls of `status`, newest first, keyset-paged on
 * (created_at, id) by a row comparison that the `(status, created_at DESC, id DESC)` index serves
 * as an index condition at any depth (no OFFSET). One more row than `limit` tells whether a next page exists.
 */
export function inboxPageQuery(query: InboxQuery, after: KeysetPosition | null): Prisma.Sql {
  return Prisma.sql`
    SELECT ${pendingColumns('p')} FROM pending_tool_calls p
    WHERE p.status = ${query.status} AND p.kind IN ('approval', 'suspension')
      AND (${query.agentId ?? null}::text IS NULL OR p.agent_id = ${query.agentId ?? null})
      AND (${query.toolName ?? null}::text IS NULL OR p.tool_name = ${query.toolName ?? null})
      AND ${afterPosition(after, 'p')}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT ${query.limit + 1}`;
}

/**
 * Calls waiting on a person (or, with `status: 'unknown'`, whose outcome is unknown), newest first,
 * keyset-paged (see inboxPageQuery). Source: behaviour §7, §11.
 *
 * @param db the client (default: the process's)
 * @returns a page of items and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listInbox(query: InboxQuery, db: PrismaClient = prisma()): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<PendingRow[]>(inboxPageQuery(query, decodeCursor(query.cursor)));
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((row) => {
      const call = toPendingCall(row);
      return {
        id: call.id,
        status: call.status as InboxItem['status'],
        // A person addresses a call through the top-level run (a sub-agent's call under its delegation).
        runId: call.rootRunId,
        toolCallId: call.rootToolCallId,
        kind: call.kind as InboxItem['kind'],
        toolName: call.toolName,
        args: call.args,
        fingerprint: call.fingerprint,
        approvers: call.approvers,
        policy: call.policy,
        why: call.policyEvaluation?.why ?? null,
        quorum: call.quorum,
        approvedBy: call.approvedBy,
        policyVersion: call.policyVersion,
        suspendPayload: call.suspendPayload,
        resumeSchema: call.resumeSchema,
        threadId: call.threadId,
        requester: call.requestedBy,
        agentId: call.agentId,
        chain: call.chain,
        description: describeAppCall(call.toolName, call.args),
        createdAt: call.createdAt.toISOString(),
        deadlineAt: call.deadlineAt?.toISOString() ?? null,
        deadlineAction: call.deadlineAction ?? null,
        escalatedAt: call.escalatedAt?.toISOString() ?? null,
        assignedToRole: call.assignedToRole ?? null,
      };
    }),
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}
