'use client';

import { Pencil, RotateCcw, Trash2, Webhook } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import type { Viewer } from '@/components/ui/account-menu';
import { AlertDialog, AlertDialogCancel } from '@/components/ui/alert-dialog';
import { AppNav } from '@/components/ui/app-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ErrorNotice } from '@/components/ui/error-notice';
import type { FriendlyError } from '@/components/ui/api-error';
import { sendJson } from '@/components/ui/send-json';
import { ShortDate } from '@/components/ui/time';
import type { WebhookDeliveryView, WebhookEndpointView } from '@/lib/webhooks/endpoints';
import { DeliveryLog, type Log } from './webhook-deliveries';
import { AddEndpoint, EndpointForm, SecretNotice, type Handover } from './webhook-endpoint-form';

type Confirm = { endpoint: WebhookEndpointView; action: 'rotate' | 'delete' };

/**
 * The admins' webhook page: register an endpoint (URL, events; its signing secret shown once), and
 * per endpoint: edit, enable/disable, rotate the secret (the old one keeps signing for 24 hours),
 * delete. Below, the delivery log (status, attempts, last answer, response time) with Resend; it
 * refreshes itself while deliveries are pending.
 */
export function WebhooksView({ initialEndpoints, initialLog, viewer }: { initialEndpoints: WebhookEndpointView[]; initialLog: Log; viewer: Viewer }) {
  const [endpoints, setEndpoints] = useState(initialEndpoints);
  const [log, setLog] = useState(initialLog);
  const [error, setError] = useState<FriendlyError | null>(null);
  const [handover, setHandover] = useState<Handover | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const triggers = useRef(new Map<string, HTMLButtonElement>());

  const refresh = useCallback(async () => {
    const [list, deliveries] = await Promise.all([
      sendJson<{ endpoints: WebhookEndpointView[] }>('/api/admin/webhooks', { method: 'GET' }),
      sendJson<Log>('/api/admin/webhooks/deliveries?limit=50', { method: 'GET' }),
    ]);
    if (!list.ok) return setError(list.error);
    if (!deliveries.ok) return setError(deliveries.error);
    setEndpoints(list.data.endpoints);
    setLog(deliveries.data);
  }, []);

  // While something waits to be delivered, look again every few seconds.
  const pending = log.deliveries.some((delivery) => delivery.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => void refresh(), 3_000);
    return () => clearTimeout(timer);
  }, [pending, log, refresh]);

  const replace = (endpoint: WebhookEndpointView) => setEndpoints((current) => current.map((item) => (item.id === endpoint.id ? endpoint : item)));
  const patch = async (endpoint: WebhookEndpointView, body: object, done: string) => {
    setBusy(endpoint.id);
    const outcome = await sendJson<{ endpoint: WebhookEndpointView }>(`/api/admin/webhooks/${encodeURIComponent(endpoint.id)}`, { method: 'PATCH', body });
    setBusy(null);
    if (!outcome.ok) {
      setError(outcome.error);
      return false;
    }
    setError(null);
    replace(outcome.data.endpoint);
    toast(done);
    return true;
  };

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <Webhook className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Webhooks</h1>
        <AppNav viewer={viewer} current="webhooks" />
      </header>
      <main className="mx-auto flex w-full max-w-5xl flex-col gap-6 px-3 py-6 md:px-4">
        <AddEndpoint
          onCreated={(endpoint, secret) => {
            setEndpoints((current) => [...current, endpoint]);
            setHandover({ url: endpoint.url, secret, rotated: false });
            setError(null);
          }}
          onError={setError}
        />
        {handover ? <SecretNotice handover={handover} onDone={() => setHandover(null)} /> : null}
        {error ? <ErrorNotice testId="webhooks-error" error={error} onDismiss={() => setError(null)} /> : null}

        <section aria-labelledby="endpoints-heading" className="flex flex-col gap-2">
          <h2 id="endpoints-heading" className="text-sm font-semibold">
            Endpoints <span className="font-normal text-muted-foreground">({endpoints.length})</span>
          </h2>
          {endpoints.length === 0 ? (
            <p className="rounded-lg border border-dashed border-border p-4 text-sm text-muted-foreground">No endpoints yet. Add one above to receive signed events.</p>
          ) : (
            <ul className="flex flex-col divide-y divide-border rounded-lg border border-border bg-card" data-testid="webhook-endpoints">
              {endpoints.map((endpoint) => (
                <li key={endpoint.id} data-testid="webhook-endpoint" data-url={endpoint.url} className="flex flex-col gap-2 p-3">
                  {editing === endpoint.id ? (
                    <EndpointForm
                      initial={endpoint}
                      submitLabel="Save"
                      busy={busy === endpoint.id}
                      onCancel={() => setEditing(null)}
                      onSubmit={async (values) => {
                        if (await patch(endpoint, values, 'Endpoint saved')) setEditing(null);
                      }}
                    />
                  ) : (
                    <>
                      <div className="flex min-w-0 flex-col gap-1">
                        <span className="flex flex-wrap items-center gap-2">
                          <span className="min-w-0 font-mono text-sm break-all">{endpoint.url}</span>
                          {endpoint.enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>}
                          {endpoint.previousSecretExpiresAt ? (
                            <Badge tone="accent" title="Deliveries carry a signature with the old secret too">
                              Rotating until <ShortDate iso={endpoint.previousSecretExpiresAt} />
                            </Badge>
                          ) : null}
                        </span>
                        {endpoint.description ? <span className="text-sm text-muted-foreground">{endpoint.description}</span> : null}
                        <span className="flex flex-wrap gap-1" aria-label="Events">
                          {endpoint.events.map((type) => (
                            <Badge key={type} className="font-mono">
                              {type}
                            </Badge>
                          ))}
                        </span>
                        <span className="text-xs text-muted-foreground">
                          {endpoint.deliveries.succeeded} delivered · {endpoint.deliveries.pending} pending · {endpoint.deliveries.failed} failed
                        </span>
                      </div>
                      <div className="flex flex-wrap items-center gap-2">
                        <Button size="sm" variant="outline" disabled={busy === endpoint.id} onClick={() => setEditing(endpoint.id)} aria-label={`Edit ${endpoint.url}`}>
                          <Pencil aria-hidden /> <span>Edit</span>
                        </Button>
                        <Button
                          size="sm"
                          variant="outline"
                          disabled={busy === endpoint.id}
                          onClick={() => void patch(endpoint, { enabled: !endpoint.enabled }, endpoint.enabled ? 'Endpoint disabled' : 'Endpoint enabled')}
                          aria-label={`${endpoint.enabled ? 'Disable' : 'Enable'} ${endpoint.url}`}
                        >
                          <span>{endpoint.enabled ? 'Disable' : 'Enable'}</span>
                        </Button>
                        {(['rotate', 'delete'] as const).map((action) => (
                          <Button
                            key={action}
                            size="sm"
                            variant="outline"
                            disabled={busy === endpoint.id}
                            ref={(element) => {
                              if (element) triggers.current.set(`${action}-${endpoint.id}`, element);
                            }}
                            onClick={() => setConfirm({ endpoint, action })}
                            aria-label={`${action === 'rotate' ? 'Rotate secret of' : 'Delete'} ${endpoint.url}`}
                          >
                            {action === 'rotate' ? <RotateCcw aria-hidden /> : <Trash2 aria-hidden />}
                            <span>{action === 'rotate' ? 'Rotate secret' : 'Delete'}</span>
                          </Button>
                        ))}
                      </div>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>

        <DeliveryLog
          log={log}
          onRefresh={refresh}
          onMore={async () => {
            if (!log.nextCursor) return;
            const outcome = await sendJson<Log>(`/api/admin/webhooks/deliveries?limit=50&cursor=${encodeURIComponent(log.nextCursor)}`, { method: 'GET' });
            if (!outcome.ok) return setError(outcome.error);
            setLog({ deliveries: [...log.deliveries, ...outcome.data.deliveries], nextCursor: outcome.data.nextCursor });
          }}
          onResend={async (delivery) => {
            const outcome = await sendJson<{ delivery: WebhookDeliveryView }>(`/api/admin/webhooks/deliveries/${encodeURIComponent(delivery.id)}/resend`, { method: 'POST' });
            if (!outcome.ok) return setError(outcome.error);
            setError(null);
            setLog((current) => ({ ...current, deliveries: current.deliveries.map((item) => (item.id === delivery.id ? outcome.data.delivery : item)) }));
            toast('Sending it again');
          }}
        />
      </main>
      <AlertDialog
        open={confirm !== null}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={confirm?.action === 'delete' ? 'Delete this endpoint?' : 'Rotate the signing secret?'}
        description={
          confirm?.action === 'delete'
            ? `${confirm.endpoint.url} receives nothing more, and its delivery log is deleted with it.`
            : 'You get a new secret, shown once. For 24 hours every delivery is signed with the old and the new secret, so the receiver can switch whenever it likes.'
        }
        returnFocusTo={() => (confirm ? triggers.current.get(`${confirm.action}-${confirm.endpoint.id}`) : null)}
        actions={
          <>
            <AlertDialogCancel asChild>
              <Button size="sm">Cancel</Button>
            </AlertDialogCancel>
            <Button
              size="sm"
              variant={confirm?.action === 'delete' ? 'destructive' : 'primary'}
              data-testid="confirm-webhook-action"
              onClick={async () => {
                const current = confirm;
                if (!current) return;
                setConfirm(null);
                const path = `/api/admin/webhooks/${encodeURIComponent(current.endpoint.id)}`;
                setBusy(current.endpoint.id);
                if (current.action === 'delete') {
                  const outcome = await sendJson<{ id: string }>(path, { method: 'DELETE' });
                  setBusy(null);
                  if (!outcome.ok) return setError(outcome.error);
                  setEndpoints((list) => list.filter((item) => item.id !== current.endpoint.id));
                  setLog((list) => ({ ...list, deliveries: list.deliveries.filter((item) => item.endpointId !== current.endpoint.id) }));
                  toast('Endpoint deleted');
                  return;
                }
                const outcome = await sendJson<{ endpoint: WebhookEndpointView; secret: string }>(`${path}/rotate`, { method: 'POST', body: {} });
                setBusy(null);
                if (!outcome.ok) return setError(outcome.error);
                replace(outcome.data.endpoint);
                setHandover({ url: outcome.data.endpoint.url, secret: outcome.data.secret, rotated: true });
              }}
            >
              {confirm?.action === 'delete' ? 'Delete' : 'Rotate secret'}
            </Button>
          </>
        }
      />
    </div>
  );
}
