import type { Actor } from '@/lib/agent/tool';

/**
 * Fixed demo identities until sign-in exists (issue 6). Every layer takes the acting identity
 * explicitly, so real accounts replace these without changing signatures.
 */
export const DEMO_USER: Actor & { name: string } = { id: 'user-ada', role: 'user', name: 'Ada' };
export const DEMO_REVIEWER: Actor & { name: string } = { id: 'reviewer-rita', role: 'reviewer', name: 'Rita' };

/** The end user acting in the chat. */
export function currentUser(): Actor {
  return { id: DEMO_USER.id, role: DEMO_USER.role };
}

/** The reviewer acting in the inbox. */
export function currentReviewer(): Actor {
  return { id: DEMO_REVIEWER.id, role: DEMO_REVIEWER.role };
}

const NAMES: Record<string, string> = { [DEMO_USER.id]: DEMO_USER.name, [DEMO_REVIEWER.id]: DEMO_REVIEWER.name };

/** Display name of an actor id (falls back to the id). */
export function displayName(id: string): string {
  return NAMES[id] ?? id;
}
