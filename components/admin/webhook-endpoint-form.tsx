'use client';

import { Plus } from 'lucide-react';
import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ShownOnce } from '@/components/ui/shown-once';
import type { FriendlyError } from '@/components/ui/api-error';
import { sendJson } from '@/components/ui/send-json';
import { Input } from '@/components/ui/textarea';
import type { WebhookEndpointView, WebhookEventType } from '@/lib/webhooks/endpoints';

const EVENTS: { type: WebhookEventType; label: string }[] = [
  { type: 'call.pending', label: 'A call waits for a decision or an answer' },
  { type: 'call.decided', label: 'A call was approved, declined or answered' },
  { type: 'call.expired', label: 'A call was declined by its deadline' },
  { type: 'run.finished', label: 'A run finished (completed, failed or cancelled)' },
];

/** A secret shown once, after creating an endpoint or rotating its secret. */
export type Handover = { url: string; secret: string; rotated: boolean };

type EndpointValues = { url: string; description: string; events: WebhookEventType[] };

/** URL, description and events of an endpoint (adding one, or editing it). */
export function EndpointForm({
  initial,
  submitLabel,
  busy,
  onSubmit,
  onCancel,
}: {
  initial?: EndpointValues;
  submitLabel: string;
  busy: boolean;
  onSubmit: (values: EndpointValues, form: HTMLFormElement) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  return (
    <form
      data-testid="webhook-form"
      className="flex flex-col gap-3"
      onSubmit={async (event) => {
        event.preventDefault();
        const element = event.currentTarget;
        const form = new FormData(element);
        await onSubmit(
          { url: String(form.get('url') ?? ''), description: String(form.get('description') ?? ''), events: form.getAll('events').map(String) as WebhookEventType[] },
          element,
        );
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="flex flex-col gap-1 text-sm">
          URL
          <Input name="url" type="url" required maxLength={2000} defaultValue={initial?.url} placeholder="https://example.com/hooks/countersign" autoComplete="off" />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          Description (optional)
          <Input name="description" maxLength={200} defaultValue={initial?.description} autoComplete="off" />
        </label>
      </div>
      <fieldset className="flex flex-col gap-1" aria-describedby={`${id}-hint`}>
        <legend className="mb-1 text-sm">Events</legend>
        {EVENTS.map(({ type, label }) => (
          <label key={type} className="flex items-start gap-2 text-sm">
            <input type="checkbox" name="events" value={type} defaultChecked={initial ? initial.events.includes(type) : true} className="mt-0.5 size-4 accent-primary" />
            <span>
              <span className="font-mono">{type}</span> <span className="text-muted-foreground">— {label}</span>
            </span>
          </label>
        ))}
        <span id={`${id}-hint`} className="text-xs text-muted-foreground">
          Pick at least one.
        </span>
      </fieldset>
      <div className="flex gap-2">
        <Button type="submit" size="sm" variant="primary" disabled={busy} data-testid="save-webhook">
          {busy ? 'Saving…' : submitLabel}
        </Button>
        {onCancel ? (
          <Button size="sm" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/** Registers an endpoint; `onCreated` receives it and its signing secret, which is shown once. */
export function AddEndpoint({ onCreated, onError }: { onCreated: (endpoint: WebhookEndpointView, secret: string) => void; onError: (error: FriendlyError) => void }) {
  const id = useId();
  const [saving, setSaving] = useState(false);
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-border bg-card p-4">
      <h2 id={`${id}-heading`} className="mb-1 text-sm font-semibold">
        <Plus className="mr-1 inline size-4" aria-hidden />
        Add an endpoint
      </h2>
      <p className="mb-3 text-xs text-muted-foreground">
        Events are POSTed as JSON and signed as the Standard Webhooks specification says (headers webhook-id, webhook-timestamp, webhook-signature); failed deliveries are retried with growing waits.
      </p>
      <EndpointForm
        submitLabel="Add endpoint"
        busy={saving}
        onSubmit={async (values, form) => {
          setSaving(true);
          const outcome = await sendJson<{ endpoint: WebhookEndpointView; secret: string }>('/api/admin/webhooks', { method: 'POST', body: values });
          setSaving(false);
          if (!outcome.ok) return onError(outcome.error);
          form.reset();
          onCreated(outcome.data.endpoint, outcome.data.secret);
        }}
      />
    </section>
  );
}

/** The signing secret of a new endpoint or a rotation, shown once, with what to do with it. */
export function SecretNotice({ handover, onDone }: { handover: Handover; onDone: () => void }) {
  return (
    <ShownOnce
      title={handover.rotated ? `New signing secret for ${handover.url}` : `Signing secret for ${handover.url}`}
      value={handover.secret}
      noun="secret"
      label="Signing secret"
      onDone={onDone}
      testIds={{ panel: 'webhook-secret', value: 'webhook-secret-value' }}
    >
      Give it to the receiver to verify signatures; it is shown only now.
      {handover.rotated ? ' The old secret keeps signing too for 24 hours.' : ''}
    </ShownOnce>
  );
}
