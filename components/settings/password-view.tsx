'use client';

import { UserRound } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/textarea';
import { authClient } from '@/lib/auth/client';
import { passwordRefusal } from '@/lib/auth/password-rules';
import { SettingsTabs } from './settings-tabs';

/** The server's length rule for passwords (lib/auth/auth.ts, `emailAndPassword`), in characters. */
const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

/**
 * The sentence for a refused change, from better-auth's or lib/auth/guards.ts's error code (the
 * server checks everything again; the form's own checks only save a round trip). PASSWORD_UNCHANGED,
 * PASSWORD_NOT_ALLOWED and ACCOUNT_LOCKED carry the server's own sentence.
 */
function refusal(error: { code?: string; status: number; message?: string }): string {
  if (error.code === 'INVALID_PASSWORD') return 'Your current password is not right. A few more wrong tries lock the account for a while.';
  if (error.code === 'ACCOUNT_LOCKED') return error.message ?? 'This account is locked for a while after too many wrong passwords.';
  if (error.code === 'PASSWORD_TOO_SHORT') return `The new password needs at least ${MIN_LENGTH} characters.`;
  if (error.code === 'PASSWORD_TOO_LONG') return `The new password can have at most ${MAX_LENGTH} characters.`;
  if (error.status === 401) return 'Your session has ended (signed out here or elsewhere); sign in again to change your password.';
  if (error.status === 429) return 'Too many attempts; wait a minute and try again.';
  return error.message ?? 'The password could not be changed; try again.';
}

/**
 * The signed-in person's account page: who they are, and changing their password (the current one,
 * the new one twice, and whether to sign out their other sessions, on by default). A person whose
 * password an admin set (a new account, a reset) is sent here by sign-in and told so (`temporary`);
 * `next` is where they were going, offered as a link (Later, then Continue once changed).
 */
export function PasswordView({ viewer, email, temporary, next }: { viewer: Viewer; email: string; temporary: boolean; next: string | null }) {
  // Going on to this very page is no going on.
  const continueTo = next && new URL(next, 'http://here').pathname !== '/settings/password' ? next : null;
  const here = `/settings/password${continueTo ? `?next=${encodeURIComponent(continueTo)}` : ''}`;
  const ids = useId();
  const [current, setCurrent] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [signOutOthers, setSignOutOthers] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [signedOut, setSignedOut] = useState(false);
  // A field changed: the last refusal no longer describes what is typed (the browser's own checks
  // may stop the next submit before it reaches this page).
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setError(null);
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    if (newPassword.length < MIN_LENGTH) return setError(`The new password needs at least ${MIN_LENGTH} characters.`);
    if (newPassword.length > MAX_LENGTH) return setError(`The new password can have at most ${MAX_LENGTH} characters.`);
    const unfit = passwordRefusal(newPassword);
    if (unfit) return setError(unfit);
    if (newPassword !== repeat) return setError('The new password and its repetition differ.');
    if (newPassword === current) return setError('The new password is the same as the current one.');
    setError(null);
    setPending(true);
    const { error: failure } = await authClient.changePassword({ currentPassword: current, newPassword, revokeOtherSessions: signOutOthers });
    setPending(false);
    if (failure) {
      setError(refusal(failure));
      setSignedOut(failure.status === 401);
      return;
    }
    setCurrent('');
    setNewPassword('');
    setRepeat('');
    const message = `${signOutOthers ? 'Password changed. Your other sessions are signed out.' : 'Password changed.'} Your API keys were revoked; create new ones under API keys.`;
    setDone(message);
    toast(message);
  }

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <UserRound className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Password</h1>
        <AppNav viewer={viewer} current="account" />
      </header>
      <main className="mx-auto flex w-full max-w-3xl flex-col gap-6 px-3 py-6 md:px-4">
        <SettingsTabs current="password" />
        {temporary && !done ? (
          <div role="status" data-testid="temporary-password-notice" className="flex max-w-md flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-border bg-muted p-3 text-sm">
            <p className="min-w-0 flex-1">
              <span className="font-medium">You signed in with a temporary password</span> that an admin gave you. Choose your own now; the temporary one then stops
              working.
            </p>
            {continueTo ? (
              <a href={continueTo} className="text-primary underline underline-offset-4" data-testid="password-later">
                Later
              </a>
            ) : null}
          </div>
        ) : null}
        <p className="text-sm text-muted-foreground" data-testid="account-identity">
          Signed in as <span className="font-medium text-foreground">{viewer.name}</span> ({email}).
        </p>
        <section aria-labelledby={`${ids}-heading`} className="flex max-w-md flex-col gap-4 rounded-lg border border-border p-4">
          <div>
            <h2 id={`${ids}-heading`} className="text-sm font-semibold">
              Change your password
            </h2>
            <p className="mt-1 text-sm text-muted-foreground">
              If an admin gave you a temporary password, choose your own here. {MIN_LENGTH} to {MAX_LENGTH} characters.
            </p>
          </div>
          <form onSubmit={submit} className="flex flex-col gap-4" aria-describedby={error ? `${ids}-error` : undefined} data-testid="password-form">
            <Field id={`${ids}-current`} label="Current password" autoComplete="current-password" value={current} onChange={edit(setCurrent)} testId="password-current" />
            <Field id={`${ids}-new`} label="New password" autoComplete="new-password" value={newPassword} onChange={edit(setNewPassword)} testId="password-new" minLength={MIN_LENGTH} />
            <Field id={`${ids}-repeat`} label="Repeat the new password" autoComplete="new-password" value={repeat} onChange={edit(setRepeat)} testId="password-repeat" minLength={MIN_LENGTH} />
            <label className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 size-4 accent-primary"
                checked={signOutOthers}
                onChange={(event) => setSignOutOthers(event.target.checked)}
                data-testid="password-sign-out-others"
              />
              <span>Sign out my other sessions (other browsers and devices)</span>
            </label>
            {error ? (
              <p id={`${ids}-error`} role="alert" data-testid="password-error" className="text-sm text-destructive">
                {error}
                {signedOut ? (
                  <>
                    {' '}
                    <a href={`/sign-in?next=${encodeURIComponent(here)}`} className="font-medium underline underline-offset-4">
                      Sign in
                    </a>
                  </>
                ) : null}
              </p>
            ) : null}
            {done ? (
              <p role="status" data-testid="password-changed" className="text-sm text-success">
                {done}
                {continueTo ? (
                  <>
                    {' '}
                    <a href={continueTo} className="font-medium underline underline-offset-4" data-testid="password-continue">
                      Continue
                    </a>
                  </>
                ) : null}
              </p>
            ) : null}
            <p className="text-xs text-muted-foreground" data-testid="password-keys-note">
              Changing your password revokes all your API keys: programs using them stop working until you give them new ones.
            </p>
            <Button type="submit" variant="primary" disabled={pending} data-testid="password-submit" className="self-start">
              {pending ? 'Changing…' : 'Change password'}
            </Button>
          </form>
        </section>
      </main>
    </div>
  );
}

function Field(props: { id: string; label: string; autoComplete: string; value: string; onChange: (value: string) => void; testId: string; minLength?: number }) {
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={props.id} className="text-sm font-medium">
        {props.label}
      </label>
      <Input
        id={props.id}
        type="password"
        required
        autoComplete={props.autoComplete}
        minLength={props.minLength}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        data-testid={props.testId}
      />
    </div>
  );
}
