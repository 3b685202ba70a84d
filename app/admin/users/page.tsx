import type { Metadata } from 'next';
import { UsersView } from '@/components/admin/users-view';
import { listUsers } from '@/lib/admin/users';
import { requirePageActor } from '@/lib/auth/session';
import { signUpPolicy } from '@/lib/security/sign-up';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Users' };

export default async function UsersPage() {
  const admin = await requirePageActor(['admin']);
  const [users, signUp] = await Promise.all([listUsers(), signUpPolicy()]);
  return <UsersView initialUsers={users} initialSignUp={signUp} viewer={{ id: admin.id, name: admin.name, role: admin.role }} />;
}
