import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { accountsExist, existingDemoAccounts } from '@/lib/admin/first-admin';
import { safeNextPath } from '@/lib/auth/requested-path';
import { actorFromHeaders } from '@/lib/auth/session';
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from '@/lib/demo/seed';
import { env } from '@/lib/env';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNextPath((await searchParams).next);
  if (await actorFromHeaders(await headers())) redirect(next);
  const demo = env().NODE_ENV !== 'production' || env().COUNTERSIGN_SHOW_DEMO_ACCOUNTS;
  return (
    <main className="flex min-h-dvh items-center justify-center p-4">
      <SignInForm
        next={next}
        demoAccounts={demo ? (await existingDemoAccounts(DEMO_ACCOUNTS)).map(({ email, name, role }) => ({ email, name, role })) : []}
        demoPassword={demo ? DEMO_PASSWORD : null}
        noAccounts={!(await accountsExist())}
      />
    </main>
  );
}
