import type { ReactNode } from 'react';
import { requirePageActor } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';

/**
 * Checks the session and role before the loading skeleton streams: a visitor who is not signed
 * in (or not a reviewer) is redirected by HTTP and never sees the inbox's outline first.
 */
export default async function InboxLayout({ children }: { children: ReactNode }) {
  await requirePageActor(['reviewer', 'admin'], '/inbox');
  return children;
}
