'use client';

import { ChevronDown, History, Info, Signature } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import { DoneDetail } from './done-detail';
import { InboxFilters, type InboxFilterValues } from './inbox-filters';
import { InboxLists } from './lists';
import { outcomeOf } from './outcome';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { NotificationsButton } from './waiting-badge';
import { Badge } from '@/components/ui/badge';
import { BidiWarning } from '@/components/ui/bidi-warning';
import { describeToolCall, revealBidi, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { RelativeTime } from '@/components/ui/time';
import type { AuditEntry } from '@/lib/audit/queries';

export interface DoneViewProps {
  entries: AuditEntry[];
  nextCursor: string | null;
  olderPage: boolean;
  filters: InboxFilterValues;
  /** A filter in the URL that could not be read (e.g. a malformed date): shown, and ignored. */
  filterError: string | null;
  options: { agents: string[]; tools: string[] };
  viewer: Viewer;
  people: People;
}

/**
 * The Done tab: decided calls, newest decision first — what was asked, who decided, when, the
 * outcome and the reason — filtered on the server (see InboxFilters). Each opens read-only (Details)
 * with its arguments, its decision and what the tool returned (DoneDetail). Decisions are final; the
 * page says so, and where a declined call's reason went (the requester's chat).
 */
export function DoneView({ entries, nextCursor, olderPage, filters, filterError, options, viewer, people }: DoneViewProps) {
  const query = new URLSearchParams([['view', 'done'], ...Object.entries(filters).filter(([, value]) => value)]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <Signature className="size-5 text-primary" aria-hidden />
        <h1 className="flex min-w-0 flex-1 items-center gap-2 text-sm font-semibold">Inbox</h1>
        <NotificationsButton />
        <AppNav viewer={viewer} current="inbox" />
      </header>
      <main className="flex min-w-0 flex-1 flex-col">
        <div className="flex shrink-0 flex-col gap-2 border-b border-border px-3 py-2 md:px-4">
          <div className="flex flex-wrap items-center gap-2">
            <InboxLists current="done" />
          </div>
          <InboxFilters list="done" values={filters} options={options} />
          {filterError ? (
            <p role="alert" className="text-sm text-destructive" data-testid="inbox-filters-error">
              {filterError}
            </p>
          ) : null}
        </div>
        <p className="flex items-start gap-2 border-b border-border bg-muted/40 px-3 py-2 text-sm text-muted-foreground md:px-4" data-testid="done-final">
          <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>
            Decisions are final: a decision cannot be undone once it is made. A declined call’s reason is shown in the requester’s chat, and the
            agent read it.
          </span>
        </p>
        {entries.length === 0 ? (
          <div data-testid="done-empty" className="flex flex-1 flex-col items-center justify-center gap-2 p-8 text-center">
            <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
              <History className="size-6" aria-hidden />
            </div>
            <p className="text-lg font-semibold">No decided calls{Object.values(filters).some(Boolean) ? ' match these filters' : ' yet'}</p>
          </div>
        ) : (
          <ul aria-label="Decided calls" className="divide-y divide-border">
            {entries.map((entry) => {
              const { label, tone } = outcomeOf(entry);
              const chain = entry.chain.length > 0 ? entry.chain.join(' › ') : `${entry.agentId} › ${entry.toolName}`;
              return (
                <li
                  key={entry.id}
                  data-testid="done-row"
                  data-kind={entry.kind}
                  data-tool-name={entry.toolName}
                  data-tool-call-id={entry.toolCallId}
                  className="flex flex-col gap-1 px-3 py-3 md:px-4"
                >
                  <div className="flex min-w-0 items-center gap-2">
                    <span className="min-w-0 truncate font-mono text-sm font-medium">{entry.toolName}</span>
                    <Badge tone={tone} data-testid="done-outcome">
                      {label}
                    </Badge>
                    <BidiWarning value={[entry.reason, entry.args, entry.editedArgs]} compact />
                    <RelativeTime iso={entry.at} className="ml-auto shrink-0 text-xs text-muted-foreground" />
                    <button
                      type="button"
                      data-testid="done-open"
                      aria-expanded={open === entry.id}
                      aria-controls={`done-detail-${entry.id}`}
                      onClick={() => setOpen(open === entry.id ? null : entry.id)}
                      className="inline-flex min-h-6 shrink-0 items-center gap-1 rounded px-1.5 text-xs text-primary hover:underline focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
                    >
                      Details<span className="sr-only"> of {entry.toolName}</span>
                      <ChevronDown className={open === entry.id ? 'size-3 rotate-180' : 'size-3'} aria-hidden />
                    </button>
                  </div>
                  <p className="min-w-0 text-sm break-words">
                    <bdi>{entry.editedArgs ? describeToolCall(entry.toolName, entry.editedArgs) : (entry.description?.title ?? describeToolCall(entry.toolName, entry.args))}</bdi>
                  </p>
                  <p className="min-w-0 text-xs break-words text-muted-foreground" data-testid="done-who">
                    {label} by{' '}
                    <span className="text-foreground">
                      <PersonLabel id={entry.actorId} people={people} />
                    </span>{' '}
                    ({entry.actorRole}) · asked by <PersonLabel id={entry.requester} people={people} /> · {chain}
                  </p>
                  {entry.reason ? (
                    <p className="min-w-0 text-sm break-words" data-testid="done-reason">
                      <span className="text-muted-foreground">Reason: </span>“<bdi>{revealBidi(entry.reason)}</bdi>”
                    </p>
                  ) : null}
                  {open === entry.id ? <DoneDetail entry={entry} people={people} id={`done-detail-${entry.id}`} /> : null}
                </li>
              );
            })}
          </ul>
        )}
        {nextCursor || olderPage ? (
          <nav aria-label="Pages" className="flex gap-2 border-t border-border p-3 text-sm">
            {olderPage ? (
              <Link href={`/inbox?${query}`} className="text-primary hover:underline">
                ← Newest
              </Link>
            ) : null}
            {nextCursor ? (
              <Link href={`/inbox?${new URLSearchParams([...query, ['cursor', nextCursor]])}`} className="ml-auto text-primary hover:underline" data-testid="done-older">
                Older decisions →
              </Link>
            ) : null}
          </nav>
        ) : null}
      </main>
    </div>
  );
}
