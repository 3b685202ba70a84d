import type { InboxItem } from '@/lib/inbox/queries';

export type { InboxItem };

/** What the reviewer sends for one row (`args`: approve with edited arguments). */
export type InboxAction = { type: 'approve'; args?: unknown } | { type: 'decline'; reason?: string } | { type: 'answer'; resumeData: unknown };
