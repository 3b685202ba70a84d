import type { ReactNode } from 'react';
import { requirePageActor } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';

/**
 * Checks the session before the loading skeleton streams, so a visitor who is not signed in gets
 * an HTTP redirect to sign-in and never sees the chat's outline first.
 */
export default async function ChatLayout({ children, params }: { children: ReactNode; params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  await requirePageActor(['user', 'reviewer', 'admin'], `/chat/${encodeURIComponent(threadId)}`);
  return children;
}
