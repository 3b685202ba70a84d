'use client';

import { KeyRound, Plus, Trash2 } from 'lucide-react';
import { useId, useRef, useState } from 'react';
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
import { LocalTime, RelativeTime } from '@/components/ui/time';
import { SettingsTabs } from './settings-tabs';
import type { ApiKeySummary } from '@/lib/auth/api-keys';
import { SCOPE_LABELS, type Scope } from '@/lib/auth/scopes';

const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
];

const STATUS: Record<ApiKeySummary['status'], { label: string; tone: 'success' | 'neutral' | 'danger' }> = {
  active: { label: 'Active', tone: 'success' },
  revoked: { label: 'Revoked', tone: 'danger' },
  expired: { label: 'Expired', tone: 'neutral' },
};

/**
 * A person's API keys: create one (name, scopes their role allows, expiry, requests per minute;
 * the secret is shown once), list them with their last use, and revoke them.
 */
export function ApiKeysView({ initialKeys, allowedScopes, viewer }: { initialKeys: ApiKeySummary[]; allowedScopes: Scope[]; viewer: Viewer }) {
  const [keys, setKeys] = useState(initialKeys);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKeySummary | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const revokeButtons = useRef(new Map<string, HTMLButtonElement>());

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <KeyRound className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">API keys</h1>
        <AppNav viewer={viewer} current="account" />
      </header>
      <main className="mx-auto flex w-full max-w-3xl flex-col gap-6 px-3 py-6 md:px-4">
        <SettingsTabs current="keys" />
        <p className="text-sm text-muted-foreground">
          A key lets a program act as you: send it as <code className="rounded bg-muted px-1 py-0.5 text-xs">Authorization: Bearer &lt;key&gt;</code> or{' '}
          <code className="rounded bg-muted px-1 py-0.5 text-xs">x-api-key</code>. It can do only what its scopes and your role allow. The{' '}
          <a href="/docs/api" className="text-primary underline underline-offset-4">
            API reference
          </a>{' '}
          lists every route and the scope it needs. Creating a key asks for your password again; you can have at most 10 active keys. Changing your password (or an
          administrator resetting it) revokes all your keys.
        </p>
        <p className="text-sm">
          Your user id (the agents API&apos;s <code className="rounded bg-muted px-1 py-0.5 text-xs">resourceId</code>, which defaults to it; a program can also ask{' '}
          <code className="rounded bg-muted px-1 py-0.5 text-xs">GET /api/me</code>):{' '}
          <code data-testid="my-user-id" className="rounded bg-muted px-1 py-0.5 font-mono text-xs">
            {viewer.id}
          </code>
        </p>
        {secret ? (
          <NewSecret secret={secret} onDone={() => setSecret(null)} />
        ) : (
          <CreateKeyForm
            allowedScopes={allowedScopes}
            onCreated={(key, value) => {
              setKeys((current) => [key, ...current]);
              setSecret({ name: key.name, value });
              setError(null);
            }}
            onError={setError}
          />
        )}
        {error ? <ErrorNotice testId="keys-error" error={error} onDismiss={() => setError(null)} /> : null}
        <section aria-labelledby="keys-heading" className="flex flex-col gap-2">
          <h2 id="keys-heading" className="text-sm font-semibold">
            Your keys
          </h2>
          {keys.length === 0 ? (
            <p data-testid="keys-empty" className="rounded-lg border border-dashed border-border p-6 text-center text-sm text-muted-foreground">
              No keys yet. Create one above when a program needs to act for you.
            </p>
          ) : (
            <ul className="flex flex-col gap-2" data-testid="keys-list">
              {keys.map((key) => (
                <li key={key.id} data-testid="key-row" data-status={key.status} className="flex flex-col gap-2 rounded-lg border border-border bg-card p-3 sm:flex-row sm:items-start">
                  <div className="flex min-w-0 flex-1 flex-col gap-1.5">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="truncate font-medium">{key.name}</span>
                      <code className="text-xs text-muted-foreground">{key.start ? `${key.start}…` : ''}</code>
                      <Badge tone={STATUS[key.status].tone}>{STATUS[key.status].label}</Badge>
                    </div>
                    <div className="flex flex-wrap gap-1">
                      {key.scopes.map((scope) => (
                        <Badge key={scope} tone="accent">
                          {scope}
                        </Badge>
                      ))}
                    </div>
                    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs text-muted-foreground">
                      <dt>Last used</dt>
                      <dd data-testid="key-last-used">{key.lastUsedAt ? <RelativeTime iso={key.lastUsedAt} /> : 'Never'}</dd>
                      <dt>Created</dt>
                      <dd>
                        <LocalTime iso={key.createdAt} />
                      </dd>
                      <dt>Expires</dt>
                      <dd>{key.expiresAt ? <LocalTime iso={key.expiresAt} /> : 'Never'}</dd>
                      <dt>Limit</dt>
                      <dd>{key.rateLimitPerMinute ? `${key.rateLimitPerMinute} requests a minute` : 'None'}</dd>
                    </dl>
                  </div>
                  {key.status === 'active' ? (
                    <Button
                      size="sm"
                      variant="outline"
                      className="self-start"
                      ref={(element) => {
                        if (element) revokeButtons.current.set(key.id, element);
                      }}
                      onClick={() => setRevoking(key)}
                      aria-label={`Revoke ${key.name}`}
                    >
                      <Trash2 aria-hidden /> Revoke
                    </Button>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </section>
      </main>
      <AlertDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        description="Programs using this key stop working at once. This cannot be undone; create a new key if you need one again."
        returnFocusTo={() => (revoking ? revokeButtons.current.get(revoking.id) : null)}
        actions={
          <>
            <AlertDialogCancel asChild>
              <Button size="sm">Cancel</Button>
            </AlertDialogCancel>
            <Button
              size="sm"
              variant="destructive"
              data-testid="confirm-revoke"
              onClick={async () => {
                const target = revoking;
                if (!target) return;
                setRevoking(null);
                const outcome = await sendJson<{ key: ApiKeySummary }>(`/api/keys/${encodeURIComponent(target.id)}`, { method: 'DELETE' });
                if (!outcome.ok) return setError(outcome.error);
                setKeys((current) => current.map((key) => (key.id === target.id ? outcome.data.key : key)));
                toast(`Revoked “${target.name}”`);
              }}
            >
              Revoke key
            </Button>
          </>
        }
      />
    </div>
  );
}

function CreateKeyForm({
  allowedScopes,
  onCreated,
  onError,
}: {
  allowedScopes: Scope[];
  onCreated: (key: ApiKeySummary, secret: string) => void;
  onError: (error: FriendlyError) => void;
}) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [scopeMissing, setScopeMissing] = useState(false);
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-border bg-card p-4">
      <h2 id={`${id}-heading`} className="mb-3 text-sm font-semibold">
        Create a key
      </h2>
      <form
        data-testid="create-key-form"
        className="flex flex-col gap-4"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const scopes = form.getAll('scopes').map(String);
          if (scopes.length === 0) return setScopeMissing(true);
          setScopeMissing(false);
          setBusy(true);
          const expires = String(form.get('expires') ?? '');
          const outcome = await sendJson<{ key: ApiKeySummary; secret: string }>('/api/keys', {
            method: 'POST',
            body: {
              name: String(form.get('name') ?? ''),
              scopes,
              expiresInDays: expires ? Number(expires) : null,
              rateLimitPerMinute: Number(form.get('rateLimit') ?? 120),
              password: String(form.get('password') ?? ''),
            },
          });
          setBusy(false);
          if (!outcome.ok) return onError(outcome.error);
          (event.target as HTMLFormElement).reset();
          onCreated(outcome.data.key, outcome.data.secret);
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <label className="flex flex-col gap-1 text-sm">
            Name
            <Input name="name" required maxLength={64} placeholder="e.g. CI pipeline" autoComplete="off" />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            Expires
            <select name="expires" defaultValue="90" className="h-9 rounded-md border border-input bg-background px-2 text-sm">
              {EXPIRY_CHOICES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm">
            Requests per minute
            <Input name="rateLimit" type="number" min={1} max={10000} defaultValue={120} required />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            Your password
            <Input name="password" type="password" required maxLength={128} autoComplete="current-password" />
          </label>
        </div>
        <fieldset className="flex flex-col gap-2" aria-describedby={scopeMissing ? `${id}-scope-error` : undefined}>
          <legend className="mb-1 text-sm">Scopes</legend>
          {allowedScopes.map((scope) => (
            <label key={scope} className="flex items-start gap-2 text-sm">
              <input type="checkbox" name="scopes" value={scope} defaultChecked={scope === 'agents:run'} className="mt-0.5 size-4 accent-primary" />
              <span>
                <code className="text-xs font-medium">{scope}</code>
                <span className="block text-xs text-muted-foreground">{SCOPE_LABELS[scope]}</span>
              </span>
            </label>
          ))}
          {scopeMissing ? (
            <p id={`${id}-scope-error`} role="alert" className="text-xs text-destructive">
              Pick at least one scope.
            </p>
          ) : null}
        </fieldset>
        <div>
          <Button type="submit" variant="primary" size="sm" disabled={busy} data-testid="create-key">
            <Plus aria-hidden /> {busy ? 'Creating…' : 'Create key'}
          </Button>
        </div>
      </form>
    </section>
  );
}

function NewSecret({ secret, onDone }: { secret: { name: string; value: string }; onDone: () => void }) {
  return (
    <ShownOnce
      title={`Copy “${secret.name}” now`}
      value={secret.value}
      noun="key"
      label="The new key"
      markCopied
      onDone={onDone}
      testIds={{ panel: 'new-key-secret', value: 'new-key-value', done: 'new-key-done' }}
    >
      This is the only time the key is shown. Store it somewhere safe; if you lose it, revoke it and create another.
    </ShownOnce>
  );
}
