import 'server-only';
import { randomUUID } from 'node:crypto';
import { prisma } from '@/lib/store/db';

/** Administrative actions recorded in `audit_events`. */
export type AuditAction =
  | 'api_key.created'
  | 'api_key.revoked'
  | 'user.created'
  | 'user.role_changed'
  | 'user.deactivated'
  | 'user.reactivated'
  | 'user.password_reset'
  | 'settings.sign_up_changed'
  | 'auth.signed_in';

/**
 * Appends one administrative action to the append-only `audit_events` table.
 *
 * @param event.action what happened (see AuditAction)
 * @param event.actor who did it (null: the system, e.g. a sign-in before a session exists)
 * @param event.target what it was done to, e.g. `{ type: 'user', id }`
 * @param event.details JSON facts of the change (never a secret: key hashes and passwords stay out)
 * @returns the new entry's id
 */
export async function recordAuditEvent(event: {
  action: AuditAction;
  actor: { id: string; role: string } | null;
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
}): Promise<string> {
  const id = randomUUID();
  await prisma().auditEvent.create({
    data: {
      id,
      action: event.action,
      actorId: event.actor?.id ?? null,
      actorRole: event.actor?.role ?? null,
      targetType: event.target?.type ?? null,
      targetId: event.target?.id ?? null,
      details: (event.details ?? {}) as object,
    },
  });
  return id;
}
