'use client';

import { Signature } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/textarea';
import { authClient } from '@/lib/auth/client';

export interface SignInFormProps {
  next: string;
  /** Seeded local accounts, shown outside production to make trying the app easy. */
  demoAccounts: { email: string; name: string; role: string }[];
  demoPassword: string | null;
  /** The database has no account yet (a fresh `npm start`): say how the first admin is made. */
  noAccounts: boolean;
}

/**
 * Email and password sign-in (better-auth). Goes on to `next`, or first to the password page when
 * the password was an admin's temporary one.
 */
export function SignInForm({ next, demoAccounts, demoPassword, noAccounts }: SignInFormProps) {
  const router = useRouter();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const { data, error: failure } = await authClient.signIn.email({ email: email.trim(), password });
    setPending(false);
    if (failure) {
      setError(failure.status === 401 ? 'That email and password do not match an account.' : (failure.message ?? 'Sign-in failed; try again.'));
      return;
    }
    // A password an admin handed over: choose one's own first, then go on to where one was going.
    const temporary = (data?.user as { passwordTemporary?: boolean } | undefined)?.passwordTemporary === true;
    router.push(temporary ? `/settings/password?next=${encodeURIComponent(next)}` : next);
    router.refresh();
  }

  return (
    <div className="w-full max-w-sm space-y-6">
      <div className="flex items-center gap-2">
        <Signature className="size-6 text-primary" aria-hidden />
        <h1 className="text-xl font-semibold">Sign in to Countersign</h1>
      </div>
      {noAccounts ? (
        <section className="rounded-lg border border-border bg-muted p-3 text-sm" aria-label="First sign-in" data-testid="no-accounts">
          <p className="font-medium">No account exists yet.</p>
          <p className="mt-1 text-muted-foreground">
            Whoever runs this server creates the first admin with{' '}
            <code className="font-mono text-xs text-foreground">npm run admin:create -- --email you@example.com --name &quot;Your Name&quot;</code>, signs in
            with the temporary password it prints, and adds everyone else at /admin/users.
          </p>
        </section>
      ) : null}
      <form onSubmit={submit} className="space-y-4" aria-describedby={error ? 'sign-in-error' : undefined}>
        <div className="space-y-1.5">
          <label htmlFor="email" className="text-sm font-medium">
            Email
          </label>
          <Input id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} data-testid="sign-in-email" />
        </div>
        <div className="space-y-1.5">
          <label htmlFor="password" className="text-sm font-medium">
            Password
          </label>
          <Input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="sign-in-password"
          />
        </div>
        {error ? (
          <p id="sign-in-error" role="alert" data-testid="sign-in-error" className="text-sm text-destructive">
            {error}
          </p>
        ) : null}
        <Button type="submit" variant="primary" className="w-full" disabled={pending} data-testid="sign-in-submit">
          {pending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {demoAccounts.length > 0 && demoPassword ? (
        <section className="rounded-lg border border-border p-3 text-sm" aria-label="Demo accounts">
          <p className="font-medium">Demo accounts (password “{demoPassword}”)</p>
          <ul className="mt-2 space-y-1">
            {demoAccounts.map((account) => (
              <li key={account.email}>
                <button
                  type="button"
                  className="text-left text-primary underline-offset-4 hover:underline"
                  onClick={() => {
                    setEmail(account.email);
                    setPassword(demoPassword);
                  }}
                >
                  {account.email}
                </button>{' '}
                <span className="text-muted-foreground">
                  — {account.name}, {account.role}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
