import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { queueCondition } from './queries';

/** Counted up to this many; more shows as "999+". */
export const COUNT_CAP = 999;

/** What waits for a reviewer: how many calls, and the newest (to tell that something new arrived). */
export interface WaitingForMe {
  /** Calls waiting on a person that this reviewer may act on, at most COUNT_CAP. */
  count: number;
  /** True when there are more than COUNT_CAP. */
  capped: boolean;
  newest: { id: string; toolName: string; createdAt: string } | null;
}

/**
 * The calls waiting for the actor: the inbox's "For me" queue (queueCondition `mine`: assigned to
 * them, or unassigned and theirs to decide — not their own requests, not escalated past their role).
 * Counting stops after COUNT_CAP rows, so the badge costs the same with a million waiting; both
 * reads use the `(status, created_at, id)` index.
 */
export async function waitingForMe(actor: { id: string; role: string }, db: PrismaClient = prisma()): Promise<WaitingForMe> {
  const forMe = queueCondition('mine', actor);
  const [row] = await db.$queryRaw<{ count: number; newest: { id: string; toolName: string; createdAt: string } | null }[]>`
    SELECT
      (SELECT count(*)::int FROM (
        SELECT 1 FROM pending_tool_calls p
        WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension') AND ${forMe}
        LIMIT ${COUNT_CAP + 1}
      ) t) AS count,
      (SELECT json_build_object('id', p.id, 'toolName', p.tool_name, 'createdAt', p.created_at) FROM pending_tool_calls p
        WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension') AND ${forMe}
        ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS newest`;
  return {
    count: Math.min(row.count, COUNT_CAP),
    capped: row.count > COUNT_CAP,
    newest: row.newest ? { ...row.newest, createdAt: new Date(row.newest.createdAt).toISOString() } : null,
  };
}
