import type { ReactNode } from 'react';
import { reviewedThread } from './access';

export const dynamic = 'force-dynamic';

/**
 * Checks the viewer and the thread before the loading outline streams, so a thread this view does
 * not show answers HTTP 404 with the inbox's not-found page (app/inbox/threads/not-found.tsx), and
 * its owner gets an HTTP redirect to their chat. (The inbox queue's own loading outline lives in the
 * `(queue)` group, so it does not stream ahead of this check.)
 */
export default async function ReviewThreadLayout({ children, params }: { children: ReactNode; params: Promise<{ threadId: string }> }) {
  await reviewedThread((await params).threadId);
  return children;
}
