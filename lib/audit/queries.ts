import 'server-only';
import { z } from 'zod';
import { afterPosition, decodeCursor, encodeCursor } from '@/lib/http/keyset';
import type { Prisma } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';

export const auditQuerySchema = z.object({
  actorId: z.string().max(100).optional(),
  toolName: z.string().max(100).optional(),
  kind: z.enum(['approval', 'decline', 'resume']).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: z.string().max(200).optional(),
  format: z.enum(['json', 'csv']).default('json'),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** One decision as the audit shows it: who, when, what they saw, what they decided. */
export interface AuditEntry {
  id: string;
  /** ISO 8601 */
  at: string;
  actorId: string;
  actorRole: string;
  kind: 'approval' | 'decline' | 'resume';
  approved: boolean | null;
  reason: string | null;
  toolName: string;
  agentId: string;
  chain: string[];
  runId: string;
  toolCallId: string;
  threadId: string;
  requester: string;
  fingerprint: string;
  args: unknown;
  editedArgs: unknown;
  editedFingerprint: string | null;
  resumeData: unknown;
}

/**
 * The append-only decision log, newest first, filtered; keyset pagination on (created_at, id).
 * @returns a page of entries and the cursor of the next page (null at the end)
 */
export async function listAudit(query: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const after = decodeCursor(query.cursor);
  const where: Prisma.DecisionWhereInput = {
    actorId: query.actorId,
    kind: query.kind,
    createdAt: { gte: query.from, lte: query.to },
    pendingCall: query.toolName ? { toolName: query.toolName } : undefined,
    ...afterPosition(after),
  };
  const rows = await prisma().decision.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: { pendingCall: true },
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      actorId: row.actorId,
      actorRole: row.actorRole,
      kind: row.kind as AuditEntry['kind'],
      approved: row.approved,
      reason: row.reason,
      toolName: row.pendingCall.toolName,
      agentId: row.pendingCall.agentId,
      chain: row.pendingCall.chain,
      runId: row.pendingCall.rootRunId,
      toolCallId: row.toolCallId,
      threadId: row.pendingCall.threadId,
      requester: row.pendingCall.resourceId,
      fingerprint: row.fingerprint,
      args: row.args,
      editedArgs: row.editedArgs,
      editedFingerprint: row.editedFingerprint,
      resumeData: row.resumeData,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

const CSV_COLUMNS = ['at', 'actorId', 'actorRole', 'kind', 'approved', 'reason', 'toolName', 'agentId', 'requester', 'runId', 'toolCallId', 'fingerprint', 'args', 'editedArgs', 'editedFingerprint', 'resumeData'] as const;

/** RFC 4180 CSV of audit entries (JSON columns as JSON text). */
export function auditCsv(entries: AuditEntry[]): string {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [CSV_COLUMNS.join(','), ...entries.map((entry) => CSV_COLUMNS.map((column) => cell(entry[column])).join(','))].join('\r\n') + '\r\n';
}
