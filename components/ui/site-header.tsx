import { Signature } from 'lucide-react';
import { headers } from 'next/headers';
import Link from 'next/link';
import { AppNav } from './app-nav';
import { actorFromHeaders } from '@/lib/auth/session';

/**
 * The top bar of pages outside the three sections (not allowed, not found): the app's name and,
 * for a signed-in person, the same section links and Sign out as everywhere else.
 */
export async function SiteHeader() {
  const actor = await actorFromHeaders(await headers());
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
      <Link href="/" className="flex min-w-0 flex-1 items-center gap-2 rounded-md text-sm font-semibold focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
        <Signature className="size-5 text-primary" aria-hidden />
        Countersign
      </Link>
      {actor ? <AppNav viewer={{ id: actor.id, name: actor.name, role: actor.role }} /> : null}
    </header>
  );
}
