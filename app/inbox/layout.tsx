import type { ReactNode } from 'react';
import { requirePageActor } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';

/**
 * Checks the session and role before the loading skeleton streams: a visitor who is not signed
 * in (or not a reviewer) is redirected by HTTP and never sees the inbox's outline first. Sign-in
 * then returns to the inbox page they opened, with its query (`/inbox/threads/<id>`,
 * `/inbox?view=done&…`), which requirePageActor reads from the header proxy.ts sets.
 */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  await requirePageActor(['reviewer', 'admin']);
  return children;
}
