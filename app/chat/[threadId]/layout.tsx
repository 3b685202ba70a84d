import type { ReactNode } from 'react';
import { chatThread } from './access';

export const dynamic = 'force-dynamic';

/**
 * Checks the session and the thread before the loading skeleton streams: a visitor who is not
 * signed in gets an HTTP redirect to sign-in and never sees the chat's outline first, and a thread
 * that is not theirs answers HTTP 404 with the chat's not-found page (app/chat/not-found.tsx). A
 * notFound() from the page itself would come after the skeleton, with status 200.
 */
export default async function ChatLayout({ children, params }: { children: ReactNode; params: Promise<{ threadId: string }> }) {
  await chatThread((await params).threadId);
  return children;
}
