import type { People } from '@/lib/present/describe';

/** An administrative action as the describer reads it (see lib/audit/admin-actions.ts). */
export interface DescribableAction {
  action: string;
  actorId: string | null;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

const nameOf = (id: string | null, people: People) => (id === null ? 'The system' : (people[id]?.name ?? id));
const list = (value: unknown) =>
  (Array.isArray(value) ? value : [])
    .map((rule) => (rule && typeof rule === 'object' && 'id' in rule ? `“${String((rule as { name?: unknown }).name ?? rule.id)}” (${String(rule.id)})` : String(rule)))
    .join(', ');

/** "2 assigned calls released", from a user change's `assignmentsReleased` (lib/admin/users.ts), or null. */
const released = (d: Record<string, unknown>) =>
  typeof d.assignmentsReleased === 'number' ? `${d.assignmentsReleased} assigned ${d.assignmentsReleased === 1 ? 'call' : 'calls'} released` : null;
/** ` (a, b)` of the parts that are there, or nothing. */
const aside = (parts: (string | null)[]) => (parts.some(Boolean) ? ` (${parts.filter(Boolean).join(', ')})` : '');

/**
 * One sentence for an administrative action, its actor first, e.g. `Alex Admin changed the approval
 * policies to version 4: changed “Large refunds” (large-refunds)`. Names come from `people` (user
 * id → name); unknown ids are shown as they are. The time is shown beside the sentence, not in it.
 */
export function describeAdminAction(entry: DescribableAction, people: People): string {
  const who = nameOf(entry.actorId, people);
  const d = entry.details;
  const target = nameOf(entry.targetId, people);
  switch (entry.action) {
    case 'policy.changed': {
      const parts = [
        list(d.changed) && `changed ${list(d.changed)}`,
        list(d.added) && `added ${list(d.added)}`,
        list(d.removed) && `removed ${list(d.removed)}`,
        d.reordered === true && 'reordered the rules',
      ].filter(Boolean);
      return `${who} changed the approval policies from version ${String(d.fromVersion)} to ${String(d.toVersion)}${parts.length ? `: ${parts.join('; ')}` : ' (no rule changed)'}`;
    }
    case 'user.created':
      return `${who} added the user ${String(d.email ?? target)} as ${String(d.role ?? 'user')}`;
    case 'user.role_changed':
      return `${who} changed the role of ${target} from ${String(d.from)} to ${String(d.to)}${aside([released(d)])}`;
    case 'user.deactivated': {
      const keys = typeof d.keysRevoked === 'number' ? `${d.keysRevoked} API ${d.keysRevoked === 1 ? 'key' : 'keys'} revoked` : null;
      return `${who} deactivated ${target}${aside([keys, released(d)])}`;
    }
    case 'user.reactivated':
      return `${who} reactivated ${target}`;
    case 'user.password_reset':
      return `${who} reset the password of ${target}`;
    case 'api_key.created':
      return `${who} created the API key “${String(d.name)}”${Array.isArray(d.scopes) ? ` (${d.scopes.join(', ')})` : ''}`;
    case 'api_key.revoked':
      return `${who} revoked the API key “${String(d.name)}”${d.owner && d.owner !== entry.actorId ? ` of ${nameOf(String(d.owner), people)}` : ''}`;
    case 'settings.sign_up_changed': {
      const after = (d.after ?? {}) as { enabled?: boolean; domains?: string[] };
      return `${who} turned self sign-up ${after.enabled ? 'on' : 'off'}${after.enabled && after.domains?.length ? ` for ${after.domains.join(', ')}` : ''}`;
    }
    case 'auth.signed_in':
      return `${who} signed in`;
    case 'auth.password_changed':
      return `${who} changed their password${d.otherSessionsSignedOut === false ? ' (other sessions kept)' : ''}`;
    case 'webhook.created':
    case 'webhook.updated':
    case 'webhook.deleted':
    case 'webhook.secret_rotated':
      return `${who} ${{ 'webhook.created': 'registered', 'webhook.updated': 'changed', 'webhook.deleted': 'deleted', 'webhook.secret_rotated': 'rotated the secret of' }[entry.action]} the webhook endpoint ${entry.targetId ?? ''}`.trim();
    case 'webhook.delivery_resent':
      return `${who} resent the webhook delivery ${entry.targetId ?? ''}`.trim();
    default:
      return `${who}: ${entry.action}${entry.targetId ? ` on ${entry.targetType ?? 'entry'} ${entry.targetId}` : ''}`;
  }
}

/** The user ids an action mentions (actor, target, key owner), for looking their names up. */
export function peopleInAction(entry: DescribableAction): string[] {
  const ids = [entry.actorId, entry.targetType === 'user' ? entry.targetId : null, typeof entry.details.owner === 'string' ? entry.details.owner : null];
  return ids.filter((id): id is string => id !== null);
}
