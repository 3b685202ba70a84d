import 'server-only';
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { keyedLinkSql } from '@/lib/store/rows';
import { prisma } from '@/lib/store/db';
import { contentHash, eventContent } from './chain';

/** Every administrative action recorded in `audit_events` (also the admin actions filter's values). */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'user.created',
  'user.role_changed',
  'user.deactivated',
  'user.reactivated',
  'user.password_reset',
  'settings.sign_up_changed',
  'policy.changed',
  'auth.signed_in',
  'auth.password_changed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.delivery_resent',
] as const;

/** Administrative actions recorded in `audit_events`. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Appends one administrative action to the append-only `audit_events` table as the next link of
 * the audit hash chain (lib/audit/chain.ts), in one statement: the chain head's row lock orders it
 * among concurrent decisions and events.
 *
 * @param event.action what happened (see AuditAction)
 * @param event.actor who did it (null: the system)
 * @param event.target what it was done to, e.g. `{ type: 'user', id }`
 * @param event.details JSON facts of the change (never a secret: key hashes and passwords stay out)
 * @param db the client, or a transaction so the entry commits (or not) with the change it records
 * @returns the new entry's id
 */
export async function recordAuditEvent(
  event: {
    action: AuditAction;
    actor: { id: string; role: string } | null;
    target?: { type: string; id: string };
    details?: Record<string, unknown>;
  },
  db: Pick<PrismaClient, '$executeRaw'> = prisma(),
): Promise<string> {
  const row = {
    id: randomUUID(),
    action: event.action,
    actorId: event.actor?.id ?? null,
    actorRole: event.actor?.role ?? null,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    details: JSON.parse(JSON.stringify(event.details ?? {})) as Record<string, unknown>,
    // Milliseconds, as the column keeps them, so the hashed time is the stored time.
    createdAt: new Date(),
  };
  const hash = contentHash(eventContent(row));
  await db.$executeRaw`
    WITH head AS (
      UPDATE audit_chain_head SET seq = seq + 1, prev_hash = hash, hash = ${keyedLinkSql(Prisma.sql`hash`, Prisma.sql`${hash}`)}
      WHERE id = 1
      RETURNING seq, prev_hash, hash
    )
    INSERT INTO audit_events (id, action, actor_id, actor_role, target_type, target_id, details, created_at, chain_seq, content_hash, prev_hash, hash)
    SELECT ${row.id}, ${row.action}, ${row.actorId}, ${row.actorRole}, ${row.targetType}, ${row.targetId}, ${JSON.stringify(row.details)}::jsonb,
      ${row.createdAt.toISOString()}::timestamptz, head.seq, ${hash}, head.prev_hash, head.hash
    FROM (SELECT 1) one LEFT JOIN head ON true`;
  return row.id;
}
