import type { Metadata } from 'next';
import { PasswordView } from '@/components/settings/password-view';
import { safeNextPath } from '@/lib/auth/requested-path';
import { requirePageActor } from '@/lib/auth/session';
import { prisma } from '@/lib/store/db';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Password' };

/** `?next=<path>`: where to continue after the change (set by sign-in with a temporary password). */
export default async function PasswordPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const actor = await requirePageActor();
  const next = (await searchParams).next;
  const user = await prisma().user.findUnique({ where: { id: actor.id }, select: { passwordTemporary: true } });
  return (
    <PasswordView
      viewer={{ id: actor.id, name: actor.name, role: actor.role }}
      email={actor.email}
      temporary={user?.passwordTemporary ?? false}
      next={next ? safeNextPath(next) : null}
    />
  );
}
