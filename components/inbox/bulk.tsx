'use client';

import { Check, CircleAlert, LoaderCircle, X } from 'lucide-react';
import { useCallback, useId, useState, type MouseEvent } from 'react';
import { continueRun } from './continue-run';
import type { InboxItem } from './types';
import type { FriendlyError } from '@/components/ui/api-error';
import { Button } from '@/components/ui/button';
import { callTitle, type People } from '@/lib/present/describe';
import { Input } from '@/components/ui/textarea';

/** What one item of a bulk decision came to: its own decision, with its own result. */
export type BulkOutcome = { id: string; title: string } & ({ ok: true; approved: boolean } | { ok: false; error: FriendlyError });

/** How many decisions of a bulk action are in flight at once (each reads its run's continuation). */
const BULK_CONCURRENCY = 4;

/**
 * Decides each item on its own (the single decision route, with the fingerprint the reviewer saw),
 * at most BULK_CONCURRENCY at a time. A refusal of one (e.g. someone else decided it first) never
 * undoes or stops the others.
 * @returns one outcome per item, in the items' order
 */
export async function decideEach(
  items: InboxItem[],
  decision: { approved: boolean; reason?: string },
  people: People,
  viewerId: string,
): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      const path = `/api/runs/${encodeURIComponent(item.runId)}/tool-calls/${encodeURIComponent(item.toolCallId)}/decision`;
      const body = { approved: decision.approved, fingerprint: item.fingerprint, ...(decision.reason ? { reason: decision.reason } : {}) };
      const result = await continueRun(path, body, people, viewerId);
      outcomes[index] = result.ok
        ? { id: item.id, title: callTitle(item), ok: true, approved: decision.approved }
        : { id: item.id, title: callTitle(item), ok: false, error: result.error };
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, items.length) }, worker));
  return outcomes;
}

/**
 * The selection of a list: ids with the item as it was selected (a selected call that is decided
 * elsewhere meanwhile stays selected, so the bulk result can say who decided it). Shift-click selects
 * the range from the last toggled row.
 */
export function useSelection(visible: InboxItem[]) {
  const [selected, setSelected] = useState<Map<string, InboxItem>>(new Map());
  const [anchor, setAnchor] = useState<string | null>(null);

  const toggle = useCallback(
    (item: InboxItem, range = false) => {
      setSelected((current) => {
        const next = new Map(current);
        const from = range && anchor ? visible.findIndex((row) => row.id === anchor) : -1;
        const to = visible.findIndex((row) => row.id === item.id);
        if (from >= 0 && to >= 0) {
          // A range takes the state the anchor row has.
          const on = next.has(anchor!);
          for (const row of visible.slice(Math.min(from, to), Math.max(from, to) + 1)) {
            if (on) next.set(row.id, row);
            else next.delete(row.id);
          }
        } else if (next.has(item.id)) next.delete(item.id);
        else next.set(item.id, item);
        return next;
      });
      setAnchor(item.id);
    },
    [anchor, visible],
  );
  const clear = useCallback(() => setSelected(new Map()), []);
  const remove = useCallback((ids: string[]) => {
    setSelected((current) => {
      const next = new Map(current);
      for (const id of ids) next.delete(id);
      return next;
    });
  }, []);
  const selectAll = useCallback(() => setSelected(new Map(visible.map((row) => [row.id, row]))), [visible]);
  return { selected, toggle, clear, remove, selectAll };
}

/** The checkbox of one row (a click with Shift selects the range from the last one toggled). */
export function RowCheckbox({ item, label, checked, onToggle }: { item: InboxItem; label: string; checked: boolean; onToggle: (item: InboxItem, range: boolean) => void }) {
  return (
    <input
      type="checkbox"
      data-testid="row-select"
      aria-label={label}
      checked={checked}
      onChange={() => {}}
      onClick={(event: MouseEvent<HTMLInputElement>) => onToggle(item, event.shiftKey)}
      // 24×24 px: the smallest pointer target WCAG 2.5.8 allows (axe `target-size`) without spacing exceptions.
      className="size-6 shrink-0 cursor-pointer accent-primary focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
    />
  );
}

/**
 * The bar over the list while calls are selected: approve all, or decline all with one reason;
 * then each call's own outcome (approved, declined, or why not — e.g. "Sam already approved this").
 */
export function BulkBar({
  count,
  busy,
  outcomes,
  onApprove,
  onDecline,
  onClear,
  onDismissOutcomes,
}: {
  count: number;
  busy: boolean;
  outcomes: BulkOutcome[] | null;
  onApprove: () => void;
  onDecline: (reason: string | undefined) => void;
  onClear: () => void;
  onDismissOutcomes: () => void;
}) {
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  if (count === 0 && !outcomes) return null;
  return (
    <div className="flex flex-col gap-2 border-b border-border bg-muted/40 px-3 py-2 md:px-4" data-testid="bulk-bar">
      {count > 0 ? (
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-sm font-medium" data-testid="bulk-count" aria-live="polite">
            {count} selected
          </span>
          {declining ? (
            <form
              className="flex flex-1 flex-wrap items-center gap-2"
              onSubmit={(event) => {
                event.preventDefault();
                onDecline(reason.trim() || undefined);
                setDeclining(false);
                setReason('');
              }}
            >
              <label htmlFor={reasonId} className="sr-only">
                Reason for declining all selected calls
              </label>
              <Input
                id={reasonId}
                data-testid="bulk-decline-reason"
                value={reason}
                autoFocus
                maxLength={2000}
                placeholder="One reason for all (the agents and requesters see it)"
                onChange={(event) => setReason(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Escape') setDeclining(false);
                }}
                className="min-w-48 flex-1"
                disabled={busy}
              />
              <Button type="submit" variant="destructive" size="sm" data-testid="bulk-decline-confirm" disabled={busy}>
                <X aria-hidden />
                Decline {count}
              </Button>
              <Button type="button" variant="ghost" size="sm" disabled={busy} onClick={() => setDeclining(false)}>
                Cancel
              </Button>
            </form>
          ) : (
            <>
              <Button variant="primary" size="sm" data-testid="bulk-approve" disabled={busy} onClick={onApprove}>
                {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : <Check aria-hidden />}
                Approve {count}
              </Button>
              <Button variant="outline" size="sm" data-testid="bulk-decline" disabled={busy} onClick={() => setDeclining(true)}>
                <X aria-hidden />
                Decline {count}…
              </Button>
              <Button variant="ghost" size="sm" data-testid="bulk-clear" disabled={busy} onClick={onClear}>
                Clear selection
              </Button>
            </>
          )}
        </div>
      ) : null}
      {outcomes ? (
        <div className="flex flex-col gap-1" role="status" data-testid="bulk-outcomes">
          <div className="flex items-center justify-between gap-2">
            <p className="text-sm font-medium">
              {outcomes.filter((outcome) => outcome.ok).length} of {outcomes.length} decided
            </p>
            <Button variant="ghost" size="sm" onClick={onDismissOutcomes}>
              Dismiss
            </Button>
          </div>
          <ul className="flex flex-col gap-1 text-sm">
            {outcomes.map((outcome) => (
              <li key={outcome.id} data-testid="bulk-outcome" data-ok={outcome.ok} data-pending-call-id={outcome.id} className="flex items-start gap-2">
                {outcome.ok ? (
                  outcome.approved ? (
                    <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
                  ) : (
                    <X className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
                  )
                ) : (
                  <CircleAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
                )}
                <span className="min-w-0">
                  <span className="font-medium">{outcome.title}</span>
                  {' — '}
                  {outcome.ok ? (outcome.approved ? 'approved' : 'declined') : outcome.error.message}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
