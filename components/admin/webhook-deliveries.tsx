'use client';

import { RefreshCw, Send } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ShortDate } from '@/components/ui/time';
import type { WebhookDeliveryView } from '@/lib/webhooks/endpoints';

/** One page of the delivery log, newest first, and the cursor of the next. */
export type Log = { deliveries: WebhookDeliveryView[]; nextCursor: string | null };

const STATUS_TONE = { pending: 'accent', succeeded: 'success', failed: 'danger' } as const;

const STATUS_LABEL = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' } as const;

/**
 * The delivery log: per delivery its event, endpoint, status, attempts, last answer and response
 * time, with Resend on each, Show older deliveries (the next page) and Refresh (the view also
 * refreshes it by itself while deliveries are pending).
 */
/**
 * A cell: a table column from 768 px up; below, one "label  value" line of a stacked card per
 * delivery (the label is the column's name, from `data-label`), so a phone does not scroll sideways.
 */
const CELL =
  'px-3 py-2 max-md:flex max-md:items-baseline max-md:justify-between max-md:gap-3 max-md:py-1 max-md:text-right max-md:before:shrink-0 max-md:before:text-xs max-md:before:font-sans max-md:before:text-muted-foreground max-md:before:content-[attr(data-label)]';

export function DeliveryLog({
  log,
  onRefresh,
  onMore,
  onResend,
}: {
  log: Log;
  onRefresh: () => Promise<unknown>;
  onMore: () => Promise<unknown>;
  onResend: (delivery: WebhookDeliveryView) => Promise<unknown>;
}) {
  const [working, setWorking] = useState<string | null>(null);
  return (
    <section aria-labelledby="deliveries-heading" className="flex flex-col gap-2">
      <div className="flex items-center gap-2">
        <h2 id="deliveries-heading" className="flex-1 text-sm font-semibold">
          Deliveries
        </h2>
        <Button
          size="sm"
          variant="ghost"
          data-testid="refresh-deliveries"
          disabled={working === 'refresh'}
          onClick={async () => {
            setWorking('refresh');
            await onRefresh();
            setWorking(null);
          }}
        >
          <RefreshCw aria-hidden /> Refresh
        </Button>
      </div>
      {log.deliveries.length === 0 ? (
        <p className="rounded-lg border border-dashed border-border p-4 text-sm text-muted-foreground">No deliveries yet.</p>
      ) : (
        <div className="relative rounded-lg border border-border bg-card md:overflow-x-auto">
          <table className="w-full text-left text-sm max-md:block md:min-w-[44rem]" data-testid="webhook-deliveries">
            <thead className="border-b border-border text-xs text-muted-foreground max-md:sr-only">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">Event</th>
                <th scope="col" className="px-3 py-2 font-medium">Endpoint</th>
                <th scope="col" className="px-3 py-2 font-medium">Status</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Attempts</th>
                <th scope="col" className="px-3 py-2 font-medium">Last answer</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Time</th>
                <th scope="col" className="px-3 py-2 font-medium">When</th>
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border max-md:block">
              {log.deliveries.map((delivery) => (
                <tr key={delivery.id} className="max-md:block max-md:py-1" data-testid="webhook-delivery" data-event-id={delivery.eventId} data-status={delivery.status} data-run-id={delivery.subject.runId ?? ''}>
                  <td className={CELL} data-label="Event">
                    <div className="min-w-0">
                      <span className="block font-mono text-xs">{delivery.type}</span>
                      {delivery.subject.toolName ? <span className="block text-xs text-muted-foreground">{delivery.subject.toolName}</span> : null}
                    </div>
                  </td>
                  {/* A long URL wraps anywhere (a cell's max-width does not bound an auto-layout table: truncating it widened the table past its box). */}
                  <td className={`${CELL} font-mono text-xs break-all`} data-label="Endpoint" data-testid="delivery-endpoint">
                    <span className="min-w-0 max-md:text-left">{delivery.endpointUrl}</span>
                  </td>
                  <td className={CELL} data-label="Status">
                    <Badge tone={STATUS_TONE[delivery.status]}>{STATUS_LABEL[delivery.status]}</Badge>
                  </td>
                  <td className={`${CELL} text-right tabular-nums`} data-label="Attempts" data-testid="delivery-attempts">
                    {delivery.attempts}
                  </td>
                  <td className={`${CELL} text-xs`} data-label="Last answer" data-testid="delivery-answer">
                    {delivery.lastStatusCode !== null ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? '—')}
                  </td>
                  <td className={`${CELL} text-right text-xs tabular-nums`} data-label="Time">{delivery.lastDurationMs !== null ? `${delivery.lastDurationMs} ms` : '—'}</td>
                  <td className={`${CELL} text-xs`} data-label="When">
                    <div>
                      <ShortDate iso={delivery.lastAttemptAt ?? delivery.createdAt} />
                      {delivery.nextAttemptAt && delivery.attempts > 0 ? (
                        <span className="block text-muted-foreground">
                          retry <ShortDate iso={delivery.nextAttemptAt} />
                        </span>
                      ) : null}
                    </div>
                  </td>
                  <td className="px-3 py-2 text-right max-md:block">
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={working === delivery.id}
                      aria-label={`Resend ${delivery.type} to ${delivery.endpointUrl}`}
                      data-testid="resend-delivery"
                      onClick={async () => {
                        setWorking(delivery.id);
                        await onResend(delivery);
                        setWorking(null);
                      }}
                    >
                      <Send aria-hidden /> Resend
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.nextCursor ? (
        <div>
          <Button size="sm" onClick={() => void onMore()}>
            Show older deliveries
          </Button>
        </div>
      ) : null}
    </section>
  );
}
