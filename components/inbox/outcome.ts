// A decision's outcome in words, as the inbox's Done tab and the audit log list it; pure, usable on the server and in the browser.

import { approvalLabel } from '@/components/chat/approvers';
import type { AuditEntry } from '@/lib/audit/queries';

/**
 * The outcome of a decision in words, with the badge tone that goes with it, as the Done tab and the
 * audit log show it. An approval of a quorum call carries its count in the words of the audit's
 * thread view (approvers.ts `approvalLabel`): a vote "Approved (1 of 2)", the approval that filled
 * the quorum "Approved (2 of 2)".
 */
export function outcomeOf(entry: Pick<AuditEntry, 'kind' | 'editedArgs' | 'actorRole' | 'actorId' | 'quorum' | 'approvedBy'>): {
  label: string;
  tone: 'success' | 'danger' | 'neutral';
} {
  if (entry.kind === 'resume') return { label: 'Answered', tone: 'neutral' };
  if (entry.kind === 'decline') return { label: entry.actorRole === 'system' ? 'Declined at deadline' : 'Declined', tone: 'danger' };
  if (entry.kind === 'escalation') return { label: 'Escalated to admins', tone: 'neutral' };
  return { label: approvalLabel(entry, entry.editedArgs ? 'Approved with edits' : 'Approved'), tone: 'success' };
}
