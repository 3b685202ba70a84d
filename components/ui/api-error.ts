import { formatAgo } from './format-time';
import { personName, revealBidi, type People } from '@/lib/present/describe';

/** The JSON error body every API route answers with. Source: behaviour §7. */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

/** A refused request as the UI shows it: a sentence and the next step. */
export interface FriendlyError {
  code: string;
  /** What happened, as a sentence. */
  message: string;
  /** What the person can do next. */
  next: string;
  /** The issues of a 422, as "field: message" lines. */
  issues: string[];
}

/** Reads `{ error: { code, message, details } }` from a response text; null when it is not one. */
export function parseApiError(text: string): ApiErrorBody | null {
  try {
    const body = JSON.parse(text) as { error?: Partial<ApiErrorBody> };
    if (body && typeof body.error === 'object' && body.error && typeof body.error.message === 'string') {
      return { code: String(body.error.code ?? 'ERROR'), message: body.error.message, details: body.error.details };
    }
  } catch {
    // not JSON: handled by the caller's fallback
  }
  return null;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function issueLines(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((issue) => {
    const { path, message } = record(issue);
    if (typeof message !== 'string') return [];
    const where = Array.isArray(path) && path.length > 0 ? `${path.join('.')}: ` : '';
    return [`${where}${message}`];
  });
}

const VERB: Record<string, string> = { approved: 'approved', declined: 'declined', resumed: 'answered', answered: 'answered' };

/**
 * Turns an API error (or a network failure) into a sentence with a next step.
 * `ALREADY_DECIDED` names who decided and when ("Rita already approved this 3 s ago").
 */
export function friendlyError(error: ApiErrorBody | null, people: People, viewerId?: string): FriendlyError {
  if (!error) {
    return {
      code: 'NETWORK',
      message: 'The server could not be reached or answered unexpectedly.',
      next: 'Check your connection and try again.',
      issues: [],
    };
  }
  const issues = issueLines(error.details);
  switch (error.code) {
    case 'ALREADY_DECIDED': {
      const d = record(error.details);
      const who = typeof d.decidedBy === 'string' ? personName(d.decidedBy, people, viewerId) : undefined;
      const verb = VERB[String(d.outcome)] ?? VERB[String(d.status)] ?? 'decided';
      const when = typeof d.decidedAt === 'string' ? ` ${formatAgo(d.decidedAt)}` : '';
      const reason = typeof d.reason === 'string' && d.reason.trim() ? ` (“${revealBidi(d.reason)}”)` : '';
      const whoText = who ? `${who === 'you' ? 'You' : who} already ${verb} this${when}${reason}.` : 'This was already decided.';
      return { code: error.code, message: whoText, next: 'Refresh to see the outcome.', issues };
    }
    case 'FINGERPRINT_MISMATCH':
      return { code: error.code, message: 'The call changed since it was shown.', next: 'Refresh and look at it again before deciding.', issues };
    case 'ESCALATED_TO_ADMINS':
      return {
        code: error.code,
        message: 'This call was escalated to admins at its deadline; only an admin can decide it now.',
        next: 'It waits in the admins’ inbox.',
        issues,
      };
    case 'FOUR_EYES':
      return {
        code: error.code,
        message: 'This action needs a reviewer other than the person who asked for it.',
        next: 'It stays in the reviewers’ inbox; someone else has to decide.',
        issues,
      };
    case 'NOT_REQUESTER':
      return { code: error.code, message: 'Only the person who asked for this action can withdraw it.', next: 'Decline it instead, with a reason.', issues };
    case 'ASSIGNMENT_CHANGED': {
      const d = record(error.details);
      const who = typeof d.assignedTo === 'string' ? personName(d.assignedTo, people, viewerId) : null;
      return {
        code: error.code,
        message: who ? `${who === 'you' ? 'You' : who} took this call a moment ago.` : 'Someone released this call a moment ago.',
        next: 'Look at who works on it now, then try again if you still want it.',
        issues,
      };
    }
    case 'EDIT_NEEDS_APPROVAL':
    case 'QUORUM_NO_EDITS':
      // The server's sentence names the rule; nothing ran and the call still waits as it was shown.
      return {
        code: error.code,
        message: error.message,
        next: 'Approve it unchanged, or decline it with a reason saying what you would accept, so the assistant can ask again.',
        issues,
      };
    case 'INVALID_RESUME_DATA':
    case 'INVALID_ARGS':
      return { code: error.code, message: error.message, next: 'Fix the answer and submit again; the question is still open.', issues };
    case 'NO_SNAPSHOT_FOUND':
    case 'TOOL_CALL_NOT_SUSPENDED':
      return { code: error.code, message: 'This run is no longer waiting for a decision.', next: 'Refresh to see where it stands.', issues };
    case 'EMPTY_MESSAGE':
    case 'MESSAGE_TOO_LONG':
    case 'BODY_TOO_LARGE':
      return { code: error.code, message: error.message, next: 'Edit your message and send it again.', issues };
    case 'RATE_LIMITED':
      return { code: error.code, message: error.message, next: 'Wait a moment, then try again.', issues };
    case 'THREAD_HAS_PENDING_CALLS':
      return { code: error.code, message: error.message, next: 'The chat stays until then.', issues };
    case 'THREAD_BUSY':
      return { code: error.code, message: error.message, next: 'Try again once the reply has finished.', issues };
    case 'INTERNAL':
      return { code: error.code, message: 'Something went wrong on our side.', next: 'Try again in a moment.', issues };
    default:
      return { code: error.code, message: error.message, next: 'Try again, or refresh the page.', issues };
  }
}
