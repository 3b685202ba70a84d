import type { Metadata } from 'next';
import { PasswordView } from '@/components/settings/password-view';
import { requirePageActor } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Password' };

export default async function PasswordPage() {
  const actor = await requirePageActor();
  return <PasswordView viewer={{ id: actor.id, name: actor.name, role: actor.role }} email={actor.email} />;
}
