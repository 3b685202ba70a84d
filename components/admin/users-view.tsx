'use client';

import { KeyRound, Plus, UserCheck, UserX, Users } from 'lucide-react';
import { useId, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import type { Viewer } from '@/components/ui/account-menu';
import { AlertDialog, AlertDialogCancel } from '@/components/ui/alert-dialog';
import { AppNav } from '@/components/ui/app-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ShownOnce } from '@/components/ui/shown-once';
import { ErrorNotice } from '@/components/ui/error-notice';
import type { FriendlyError } from '@/components/ui/api-error';
import { sendJson } from '@/components/ui/send-json';
import { Input } from '@/components/ui/textarea';
import { LocalTime } from '@/components/ui/time';
import { revealBidi } from '@/lib/present/describe';
import type { ManagedUser } from '@/lib/admin/users';
import { UserKeys } from './user-keys';

type Role = ManagedUser['role'];
type SignUp = { enabled: boolean; domains: string[]; source: 'database' | 'environment' };

const ROLE_LABEL: Record<Role, string> = { user: 'User', reviewer: 'Reviewer', admin: 'Admin' };
const selectClass = 'h-9 rounded-md border border-input bg-background px-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-50';

/** A password shown once after creating an account or resetting one. */
type Handover = { email: string; password: string; created: boolean; deactivated?: boolean };

/**
 * The admins' user page: self sign-up (on/off, email domains), add an account (with a temporary
 * password shown once), and per account: role, deactivate/reactivate, reset password.
 */
export function UsersView({ initialUsers, initialSignUp, viewer }: { initialUsers: ManagedUser[]; initialSignUp: SignUp; viewer: Viewer }) {
  const [users, setUsers] = useState(initialUsers);
  // Names are free text: shown with their direction controls visible (U+202E would reverse what
  // follows) everywhere this page writes them: the rows, labels, dialogs and confirmations.
  const shown = useMemo(() => users.map((user) => ({ ...user, name: revealBidi(user.name) })), [users]);
  const [error, setError] = useState<FriendlyError | null>(null);
  const [handover, setHandover] = useState<Handover | null>(null);
  const [confirm, setConfirm] = useState<{ user: ManagedUser; action: 'deactivate' | 'reset' } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const triggers = useRef(new Map<string, HTMLButtonElement>());

  const replace = (user: ManagedUser) => setUsers((current) => current.map((item) => (item.id === user.id ? user : item)));
  const patch = async (user: ManagedUser, body: object, done: string) => {
    setBusy(user.id);
    const outcome = await sendJson<{ user: ManagedUser }>(`/api/admin/users/${encodeURIComponent(user.id)}`, { method: 'PATCH', body });
    setBusy(null);
    if (!outcome.ok) return setError(outcome.error);
    setError(null);
    replace(outcome.data.user);
    toast(done);
  };

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <Users className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Users</h1>
        <AppNav viewer={viewer} current="users" />
      </header>
      <main className="mx-auto flex w-full max-w-4xl flex-col gap-6 px-3 py-6 md:px-4">
        <div className="grid gap-4 md:grid-cols-2">
          <SignUpSettings initial={initialSignUp} onError={setError} />
          <AddUser
            onCreated={(user, password) => {
              setUsers((current) => [...current, user].sort((a, b) => a.name.localeCompare(b.name)));
              setHandover({ email: user.email, password, created: true });
              setError(null);
            }}
            onError={setError}
          />
        </div>
        {handover ? <HandoverNotice handover={handover} onDone={() => setHandover(null)} /> : null}
        {error ? <ErrorNotice testId="users-error" error={error} onDismiss={() => setError(null)} /> : null}
        <section aria-labelledby="accounts-heading" className="flex flex-col gap-2">
          <h2 id="accounts-heading" className="text-sm font-semibold">
            Accounts <span className="font-normal text-muted-foreground">({users.length})</span>
          </h2>
          <ul className="flex flex-col divide-y divide-border rounded-lg border border-border bg-card" data-testid="users-list">
            {shown.map((user) => (
              <li key={user.id} data-testid="user-row" data-email={user.email} data-active={user.active} className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center">
                <div className="flex min-w-0 flex-1 flex-col">
                  <span className="flex flex-wrap items-center gap-2">
                    <span className="truncate font-medium">
                      <bdi>{user.name}</bdi>
                    </span>
                    {user.id === viewer.id ? <Badge>You</Badge> : null}
                    {user.active ? null : <Badge tone="danger">Deactivated</Badge>}
                    {user.lockedUntil ? (
                      <Badge tone="danger" data-testid="user-locked" title="Too many wrong passwords. Reset password lifts the lock.">
                        Locked until <LocalTime iso={user.lockedUntil} />
                      </Badge>
                    ) : null}
                    {user.passwordTemporary ? (
                      <Badge data-testid="user-temporary-password" title="They have not yet chosen their own password.">
                        Temporary password
                      </Badge>
                    ) : null}
                  </span>
                  <span className="truncate text-xs text-muted-foreground">
                    <bdi>{revealBidi(user.email)}</bdi>
                  </span>
                  {user.activeKeys > 0 ? <UserKeys user={user} onActiveKeys={(activeKeys) => replace({ ...user, activeKeys })} onError={setError} /> : null}
                </div>
                <div className="flex flex-wrap items-center gap-2">
                  <label className="sr-only" htmlFor={`role-${user.id}`}>
                    Role of {user.name}
                  </label>
                  <select
                    id={`role-${user.id}`}
                    data-testid="user-role"
                    className={selectClass}
                    value={user.role}
                    disabled={busy === user.id}
                    onChange={(event) => void patch(user, { role: event.target.value }, `${user.name} is now ${ROLE_LABEL[event.target.value as Role].toLowerCase()}`)}
                  >
                    {(Object.keys(ROLE_LABEL) as Role[]).map((role) => (
                      <option key={role} value={role}>
                        {ROLE_LABEL[role]}
                      </option>
                    ))}
                  </select>
                  <Button
                    size="sm"
                    variant="outline"
                    className="h-9"
                    disabled={busy === user.id}
                    ref={(element) => {
                      if (element) triggers.current.set(`reset-${user.id}`, element);
                    }}
                    onClick={() => setConfirm({ user, action: 'reset' })}
                    aria-label={`Reset password of ${user.name}`}
                  >
                    <KeyRound aria-hidden /> <span>Reset password</span>
                  </Button>
                  {user.active ? (
                    <Button
                      size="sm"
                      variant="outline"
                      className="h-9"
                      disabled={busy === user.id || user.id === viewer.id}
                      title={user.id === viewer.id ? 'You cannot deactivate your own account' : undefined}
                      ref={(element) => {
                        if (element) triggers.current.set(`deactivate-${user.id}`, element);
                      }}
                      onClick={() => setConfirm({ user, action: 'deactivate' })}
                      aria-label={`Deactivate ${user.name}`}
                    >
                      <UserX aria-hidden /> <span>Deactivate</span>
                    </Button>
                  ) : (
                    <Button size="sm" variant="outline" className="h-9" disabled={busy === user.id} onClick={() => void patch(user, { active: true }, `${user.name} can sign in again`)} aria-label={`Reactivate ${user.name}`}>
                      <UserCheck aria-hidden /> <span>Reactivate</span>
                    </Button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </section>
      </main>
      <AlertDialog
        open={confirm !== null}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={confirm?.action === 'deactivate' ? `Deactivate ${confirm.user.name}?` : `Reset the password of ${confirm?.user.name ?? ''}?`}
        description={
          confirm?.action === 'deactivate'
            ? 'They are signed out everywhere and their API keys stop working at once. Calls they asked for stay in the inbox for reviewers.'
            : 'They are signed out everywhere and all their API keys are revoked; you get a temporary password to hand over.'
        }
        returnFocusTo={() => (confirm ? triggers.current.get(`${confirm.action}-${confirm.user.id}`) : null)}
        actions={
          <>
            <AlertDialogCancel asChild>
              <Button size="sm">Cancel</Button>
            </AlertDialogCancel>
            <Button
              size="sm"
              variant={confirm?.action === 'deactivate' ? 'destructive' : 'primary'}
              data-testid="confirm-user-action"
              onClick={async () => {
                const current = confirm;
                if (!current) return;
                const reason = reasonRef.current?.value.trim();
                setConfirm(null);
                if (current.action === 'deactivate') {
                  return patch(current.user, { active: false, ...(reason ? { reason } : {}) }, `${current.user.name} was deactivated`);
                }
                setBusy(current.user.id);
                const outcome = await sendJson<{ temporaryPassword: string }>(`/api/admin/users/${encodeURIComponent(current.user.id)}/password`, { method: 'POST' });
                setBusy(null);
                if (!outcome.ok) return setError(outcome.error);
                replace({ ...current.user, activeKeys: 0 });
                setHandover({ email: current.user.email, password: outcome.data.temporaryPassword, created: false, deactivated: !current.user.active });
              }}
            >
              {confirm?.action === 'deactivate' ? 'Deactivate' : 'Reset password'}
            </Button>
          </>
        }
      >
        {confirm?.action === 'deactivate' ? (
          <label className="flex flex-col gap-1 text-sm">
            Reason (optional, kept in the audit)
            <textarea ref={reasonRef} maxLength={500} rows={2} className="rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none" />
          </label>
        ) : null}
      </AlertDialog>
    </div>
  );
}

function SignUpSettings({ initial, onError }: { initial: SignUp; onError: (error: FriendlyError) => void }) {
  const id = useId();
  const [policy, setPolicy] = useState(initial);
  const [saving, setSaving] = useState(false);
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-border bg-card p-4">
      <h2 id={`${id}-heading`} className="text-sm font-semibold">
        Self sign-up
      </h2>
      <p className="mb-3 text-xs text-muted-foreground" data-testid="sign-up-source">
        {policy.source === 'database' ? 'Set here; overrides the server’s environment.' : 'From the server’s environment until you save here.'}
      </p>
      <form
        data-testid="sign-up-form"
        className="flex flex-col gap-3"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const domains = String(form.get('domains') ?? '')
            .split(/[\s,]+/)
            .map((domain) => domain.trim())
            .filter(Boolean);
          setSaving(true);
          const outcome = await sendJson<SignUp>('/api/admin/settings/sign-up', { method: 'PUT', body: { enabled: form.get('enabled') === 'on', domains } });
          setSaving(false);
          if (!outcome.ok) return onError(outcome.error);
          setPolicy(outcome.data);
          toast(outcome.data.enabled ? 'Sign-up is on' : 'Sign-up is off');
        }}
      >
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="enabled" defaultChecked={policy.enabled} className="size-4 accent-primary" />
          People may create their own account
        </label>
        <label className="flex flex-col gap-1 text-sm">
          Allowed email domains
          <Input name="domains" defaultValue={policy.domains.join(', ')} placeholder="Any domain" aria-describedby={`${id}-domains-hint`} />
          <span id={`${id}-domains-hint`} className="text-xs text-muted-foreground">
            Comma-separated, e.g. example.com. Empty: any domain. New accounts are always users.
          </span>
        </label>
        <div>
          <Button type="submit" size="sm" variant="primary" disabled={saving} data-testid="save-sign-up">
            {saving ? 'Saving…' : 'Save'}
          </Button>
        </div>
      </form>
    </section>
  );
}

function AddUser({ onCreated, onError }: { onCreated: (user: ManagedUser, password: string) => void; onError: (error: FriendlyError) => void }) {
  const id = useId();
  const [saving, setSaving] = useState(false);
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-border bg-card p-4">
      <h2 id={`${id}-heading`} className="mb-3 text-sm font-semibold">
        Add a user
      </h2>
      <form
        data-testid="add-user-form"
        className="flex flex-col gap-3"
        onSubmit={async (event) => {
          event.preventDefault();
          const element = event.currentTarget;
          const form = new FormData(element);
          setSaving(true);
          const outcome = await sendJson<{ user: ManagedUser; temporaryPassword: string }>('/api/admin/users', {
            method: 'POST',
            body: { name: form.get('name'), email: form.get('email'), role: form.get('role') },
          });
          setSaving(false);
          if (!outcome.ok) return onError(outcome.error);
          element.reset();
          onCreated(outcome.data.user, outcome.data.temporaryPassword);
        }}
      >
        <div className="grid gap-3 sm:grid-cols-2">
          <label className="flex flex-col gap-1 text-sm">
            Name
            <Input name="name" required maxLength={100} autoComplete="off" />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            Email
            <Input name="email" type="email" required maxLength={254} autoComplete="off" />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            Role
            <select name="role" defaultValue="user" className={selectClass}>
              {(Object.keys(ROLE_LABEL) as Role[]).map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABEL[role]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div>
          <Button type="submit" size="sm" variant="primary" disabled={saving} data-testid="add-user">
            <Plus aria-hidden /> {saving ? 'Adding…' : 'Add user'}
          </Button>
        </div>
      </form>
    </section>
  );
}

function HandoverNotice({ handover, onDone }: { handover: Handover; onDone: () => void }) {
  return (
    <ShownOnce
      title={handover.created ? `Account created for ${handover.email}` : `New password for ${handover.email}`}
      value={handover.password}
      noun="password"
      label="Temporary password"
      onDone={onDone}
      testIds={{ panel: 'password-handover', value: 'temporary-password' }}
    >
      Hand this temporary password over safely; it is shown only now. Signing in with it asks them to choose their own first.
      {handover.deactivated ? ' The account is deactivated: it cannot sign in until you reactivate it.' : null}
    </ShownOnce>
  );
}
