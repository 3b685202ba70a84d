import { Download, ScrollText } from 'lucide-react';
import Link from 'next/link';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { revealBidi, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { Input } from '@/components/ui/textarea';
import { ZonedTime } from '@/components/ui/time';
import { AuditTabs } from './audit-tabs';
import type { AdminAction } from '@/lib/audit/admin-actions';
import { describeAdminAction } from '@/lib/audit/describe-action';

/** The filter values as typed (strings; empty: no filter). */
export interface AdminActionFilters {
  actor: string;
  action: string;
  from: string;
  to: string;
}

/** Action groups offered by the filter, then single actions. */
const ACTION_OPTIONS: [string, string][] = [
  ['policy', 'Policy edits'],
  ['user', 'Users and roles'],
  ['api_key', 'API keys'],
  ['settings', 'Sign-up settings'],
  ['webhook', 'Webhooks'],
  ['auth', 'Sign-ins and password changes'],
];

const SELECT = 'h-9 w-full rounded-md border border-input bg-background px-2 text-sm sm:w-44';

/**
 * Administrative actions, newest first: one sentence per action ("Alex changed the approval
 * policies from version 3 to 4: changed “Large refunds” (large-refunds)"), who and when, and the
 * recorded facts (for a policy edit both rule lists) behind a disclosure. Filters (who, which
 * action, dates) live in the URL; the whole filtered set downloads as JSON Lines with the hash chain.
 */
export function AdminActionsView({
  entries,
  nextCursor,
  filters,
  filterError,
  rangeError = null,
  people,
  viewer,
}: {
  entries: AdminAction[];
  nextCursor: string | null;
  filters: AdminActionFilters;
  filterError: string | null;
  /** The link's dates are the wrong way round: said instead of the (empty) list. */
  rangeError?: string | null;
  people: People;
  viewer: Viewer;
}) {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <ScrollText className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Audit: admin actions</h1>
        <AppNav viewer={viewer} current="audit" />
      </header>
      <main className="flex min-w-0 flex-1 flex-col">
        <div className="flex flex-col gap-2 border-b border-border px-3 py-2 md:px-4">
          <AuditTabs current="actions" />
          <form action="/audit/actions" method="get" className="grid grid-cols-2 items-end gap-2 sm:flex sm:flex-wrap" aria-label="Filter admin actions">
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="actions-actor" className="text-xs font-medium">
                Who
              </label>
              <Input id="actions-actor" name="actor" defaultValue={filters.actor} placeholder="Name or email" className="sm:w-44" />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="actions-action" className="text-xs font-medium">
                Action
              </label>
              <select id="actions-action" name="action" defaultValue={filters.action} className={SELECT}>
                <option value="">Any</option>
                {ACTION_OPTIONS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="actions-from" className="text-xs font-medium">
                From
              </label>
              <Input id="actions-from" type="date" name="from" defaultValue={filters.from} className="sm:w-40" />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <label htmlFor="actions-to" className="text-xs font-medium">
                Until
              </label>
              <Input id="actions-to" type="date" name="to" defaultValue={filters.to} className="sm:w-40" />
            </div>
            <Button type="submit" variant="primary" size="sm" data-testid="actions-apply">
              Apply
            </Button>
            {rangeError ? (
              // Nothing to download for a range that starts after it ends (the API refuses it).
              <Button type="button" variant="outline" size="sm" disabled data-testid="actions-downloads-disabled" aria-describedby="actions-range-error">
                <Download aria-hidden /> JSON Lines<span className="sr-only"> unavailable until the dates are in order</span>
              </Button>
            ) : (
              <Button asChild variant="outline" size="sm">
                <a href={`/api/audit/actions?${new URLSearchParams([...query, ['format', 'jsonl']])}`} data-testid="actions-jsonl" download>
                  <Download aria-hidden /> JSON Lines<span className="sr-only"> of every admin action matching these filters, with the hash chain</span>
                </a>
              </Button>
            )}
          </form>
          {filterError ? (
            <p role="alert" className="text-sm text-destructive" data-testid="actions-filters-error">
              {filterError}
            </p>
          ) : null}
          {rangeError ? (
            <p role="alert" id="actions-range-error" className="text-sm text-destructive" data-testid="actions-range-error">
              {rangeError}
            </p>
          ) : null}
        </div>
        {rangeError ? null : entries.length === 0 ? (
          <p data-testid="actions-empty" className="p-8 text-center text-sm text-muted-foreground">
            No admin actions match these filters.
          </p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Admin actions, newest first">
            {entries.map((entry) => (
              <li key={entry.id} data-testid="admin-action" data-action={entry.action} data-target-id={entry.targetId ?? ''} className="flex min-w-0 flex-col gap-1 px-3 py-3 md:px-4">
                <p className="text-sm break-words" data-testid="admin-action-text">
                  <bdi>{revealBidi(describeAdminAction(entry, people))}</bdi>
                </p>
                <p className="flex flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
                  <Badge tone="neutral">{entry.action}</Badge>
                  {entry.actorId ? <PersonLabel id={entry.actorId} people={people} /> : <span>system</span>}
                  {entry.actorRole ? <span>({entry.actorRole})</span> : null}
                  <span aria-hidden>·</span>
                  <ZonedTime iso={entry.at} />
                </p>
                <details className="text-xs">
                  <summary className="cursor-pointer text-muted-foreground">Recorded details</summary>
                  <pre className="mt-1 max-h-80 overflow-auto rounded-md bg-muted p-2 break-words whitespace-pre-wrap">{JSON.stringify(entry.details, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
        )}
        {nextCursor ? (
          <div className="p-4">
            <Button asChild variant="outline" size="sm">
              <Link href={`/audit/actions?${new URLSearchParams([...query, ['cursor', nextCursor]])}`}>Older</Link>
            </Button>
          </div>
        ) : null}
      </main>
    </div>
  );
}
