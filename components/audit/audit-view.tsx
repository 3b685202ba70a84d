'use client';

import { ChevronRight, Download, ExternalLink, ScrollText } from 'lucide-react';
import Link from 'next/link';
import { Fragment, useId, useState } from 'react';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { ArgsDiff } from '@/components/ui/args-diff';
import { ArgsTable } from '@/components/ui/args-table';
import { Badge } from '@/components/ui/badge';
import { BidiWarning } from '@/components/ui/bidi-warning';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { describeToolCall, revealBidi, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { LocalTime, ZonedTime } from '@/components/ui/time';
import type { InboxFilterValues } from '@/components/inbox/filter-values';
import { outcomeOf } from '@/components/inbox/outcome';
import { SearchFilters } from '@/components/inbox/inbox-filters';
import { AuditTabs } from './audit-tabs';
import type { AuditEntry } from '@/lib/audit/queries';

export interface AuditViewProps {
  entries: AuditEntry[];
  nextCursor: string | null;
  /** The filters in the URL (people by name or email); `actorId` only when a link names one. */
  filters: InboxFilterValues & { actorId: string };
  /** A filter in the URL that could not be read: shown, and left out. */
  filterError: string | null;
  /** The link's dates are the wrong way round (from after until): said instead of the (empty) list. */
  rangeError?: string | null;
  options: { agents: string[]; tools: string[] };
  people: People;
  viewer: Viewer;
  /** The model this server uses, e.g. "openai-compatible llama3.1 at http://…" (never a key). */
  model: string;
}

/** "What": the tool's one-line description of the call, from the arguments the decider saw. */
function what(entry: AuditEntry): string {
  return entry.description?.title ?? describeToolCall(entry.toolName, entry.args);
}

/** Where the call was asked: the read-only transcript, at its run. */
function threadHref(entry: AuditEntry): string {
  return `/audit/threads/${encodeURIComponent(entry.threadId)}#run-${encodeURIComponent(entry.runId)}`;
}

/**
 * The admins' decision log: filters in the URL (who decided and who asked, by name or email; tool,
 * agent, outcome, dates), a table whose rows expand by keyboard (a button with aria-expanded) to
 * the arguments before and after an edit, links to the thread, and the whole filtered log as CSV.
 * Below 768 px the table becomes a list of the same expandable entries.
 */
export function AuditView({ entries, nextCursor, filters, filterError, rangeError = null, options, people, viewer, model }: AuditViewProps) {
  const [open, setOpen] = useState<string | null>(null);
  const baseId = useId();
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  const csvQuery = new URLSearchParams([...query, ['format', 'csv']]);
  const jsonlQuery = new URLSearchParams([...query, ['format', 'jsonl']]);
  const toggle = (id: string) => setOpen((current) => (current === id ? null : id));
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <ScrollText className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold sm:flex-none">Audit</h1>
        <span data-testid="model-in-use" className="hidden min-w-0 flex-1 truncate text-xs text-muted-foreground sm:inline" title="The model this server uses">
          Model: {model}
        </span>
        <AppNav viewer={viewer} current="audit" />
      </header>
      <main className="flex min-w-0 flex-1 flex-col">
        <div className="flex flex-col gap-2 border-b border-border px-3 py-2 md:px-4">
          <AuditTabs current="decisions" />
          <div className="flex items-start gap-2">
            <div className="min-w-0 flex-1">
              <SearchFilters
                action="/audit"
                hidden={filters.actorId ? { actorId: filters.actorId } : {}}
                decided
                values={filters}
                options={options}
              />
            </div>
            {rangeError ? (
              // A range that starts after it ends has nothing to download (the API refuses it): the
              // button says so instead of starting a download that fails.
              <Button variant="outline" size="sm" className="shrink-0" disabled data-testid="audit-downloads-disabled" aria-describedby="audit-range-error">
                <Download aria-hidden /> CSV, JSON Lines<span className="sr-only"> unavailable until the dates are in order</span>
              </Button>
            ) : (
              <>
                <Button asChild variant="outline" size="sm" className="shrink-0">
                  <a href={`/api/audit?${csvQuery}`} data-testid="audit-csv" download>
                    <Download aria-hidden /> CSV<span className="sr-only"> of every decision matching these filters</span>
                  </a>
                </Button>
                <Button asChild variant="outline" size="sm" className="shrink-0">
                  <a
                    href={`/api/audit?${jsonlQuery}`}
                    data-testid="audit-jsonl"
                    download
                    title="With the hash chain: check it offline with npm run audit:verify -- --file"
                  >
                    <Download aria-hidden /> JSON Lines<span className="sr-only"> of every decision matching these filters, with the hash chain</span>
                  </a>
                </Button>
              </>
            )}
          </div>
          {filterError ? (
            <p role="alert" className="text-sm text-destructive" data-testid="audit-filters-error">
              {filterError}
            </p>
          ) : null}
          {rangeError ? (
            <p role="alert" id="audit-range-error" className="text-sm text-destructive" data-testid="audit-range-error">
              {rangeError}
            </p>
          ) : null}
        </div>
        {rangeError ? null : entries.length === 0 ? (
          <p data-testid="audit-empty" className="p-8 text-center text-sm text-muted-foreground">
            No decisions match these filters.
          </p>
        ) : (
          <>
            <AuditList entries={entries} people={people} open={open} onToggle={toggle} baseId={`${baseId}-m`} />
            <div className="hidden overflow-x-auto md:block">
              <table className="w-full text-left text-sm">
                <caption className="sr-only">Decisions, newest first</caption>
                <thead className="border-b border-border text-xs text-muted-foreground">
                  <tr>
                    <th className="w-px px-2 py-2 font-medium">
                      <span className="sr-only">Details</span>
                    </th>
                    <th className="px-2 py-2 font-medium">When</th>
                    <th className="px-2 py-2 font-medium">Who</th>
                    <th className="px-2 py-2 font-medium">What</th>
                    <th className="px-2 py-2 font-medium">Outcome</th>
                    <th className="px-2 py-2 font-medium">Reason</th>
                    <th className="px-2 py-2 font-medium">Thread</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-border">
                  {entries.map((entry) => {
                    const { label, tone } = outcomeOf(entry);
                    const expanded = open === entry.id;
                    const detailId = `${baseId}-d-${entry.id}`;
                    return (
                      <Fragment key={entry.id}>
                        <tr
                          data-testid="audit-row"
                          data-kind={entry.kind}
                          data-tool-call-id={entry.toolCallId}
                          className={cn('cursor-pointer hover:bg-muted/50', expanded && 'bg-muted/30')}
                          onClick={(event) => {
                            // Links and the button act on their own.
                            if ((event.target as HTMLElement).closest('a, button')) return;
                            toggle(entry.id);
                          }}
                        >
                          <td className="px-2 py-2 align-top">
                            <Button
                              variant="ghost"
                              size="sm"
                              className="size-7 p-0"
                              aria-expanded={expanded}
                              aria-controls={detailId}
                              data-testid="audit-toggle"
                              onClick={() => toggle(entry.id)}
                            >
                              <ChevronRight className={cn('transition-transform', expanded && 'rotate-90')} aria-hidden />
                              <span className="sr-only">Details: {what(entry)}</span>
                            </Button>
                          </td>
                          <td className="px-2 py-2 align-top whitespace-nowrap">
                            <ZonedTime iso={entry.at} />
                          </td>
                          <td className="px-2 py-2 align-top">
                            <PersonLabel id={entry.actorId} people={people} /> <span className="text-xs text-muted-foreground">({entry.actorRole})</span>
                          </td>
                          <td className="max-w-80 px-2 py-2 align-top" data-testid="audit-what">
                            <span className="block font-mono text-xs text-muted-foreground">{entry.chain.join(' › ') || entry.toolName}</span>
                            <bdi className="line-clamp-2 break-words">{what(entry)}</bdi>
                          </td>
                          <td className="px-2 py-2 align-top">
                            <Badge tone={tone}>{label}</Badge>
                          </td>
                          <td className="max-w-64 px-2 py-2 align-top">
                            <BidiWarning value={[entry.reason, entry.args, entry.editedArgs, entry.resumeData]} compact />{' '}
                            <bdi className="line-clamp-2 break-words">{entry.reason ? revealBidi(entry.reason) : '—'}</bdi>
                          </td>
                          <td className="px-2 py-2 align-top whitespace-nowrap">
                            <Link href={threadHref(entry)} className="inline-flex items-center gap-1 text-primary hover:underline" data-testid="audit-thread-link">
                              Open<span className="sr-only"> the thread of {what(entry)}</span>
                              <ExternalLink className="size-3" aria-hidden />
                            </Link>
                          </td>
                        </tr>
                        {expanded ? (
                          <tr id={detailId} data-testid="audit-detail">
                            <td colSpan={7} className="bg-muted/30 px-4 py-3">
                              <AuditDetail entry={entry} people={people} />
                            </td>
                          </tr>
                        ) : null}
                      </Fragment>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {nextCursor ? (
              <div className="p-4">
                <Button asChild variant="outline" size="sm">
                  <Link href={`/audit?${new URLSearchParams([...query, ['cursor', nextCursor]])}`}>Older</Link>
                </Button>
              </div>
            ) : null}
          </>
        )}
      </main>
    </div>
  );
}

/** What an expanded decision shows: the arguments before and after an edit (or the answer), side by side, and the ids. */
function AuditDetail({ entry, people }: { entry: AuditEntry; people: People }) {
  return (
    <div className="flex min-w-0 flex-col gap-3 text-sm">
      {entry.why ? (
        <p data-testid="audit-why">
          <span className="font-medium">Why it waited:</span> <bdi>{revealBidi(entry.why)}</bdi>
        </p>
      ) : null}
      <div className="grid min-w-0 gap-3 md:grid-cols-2">
        <div className="min-w-0">
          <p className="text-xs font-medium text-muted-foreground">Arguments the decider saw</p>
          <ArgsTable args={entry.args} label="Arguments the decider saw" />
        </div>
        <div className="min-w-0">
          <p className="text-xs font-medium text-muted-foreground">
            {entry.editedArgs ? `Edited to (fingerprint ${entry.editedFingerprint?.slice(0, 12)})` : entry.resumeData ? 'Answer' : 'No edits'}
          </p>
          {entry.editedArgs ? (
            <ArgsDiff before={entry.args} after={entry.editedArgs} className="mt-1" />
          ) : entry.resumeData ? (
            <ArgsTable args={entry.resumeData} label="Answer" />
          ) : (
            <p className="mt-1 text-xs text-muted-foreground">Approved or declined as shown.</p>
          )}
        </div>
      </div>
      <ActivityList entry={entry} people={people} />
      <p className="text-xs break-all text-muted-foreground">
        Requested by <PersonLabel id={entry.requester} people={people} /> · agent {entry.agentId} · fingerprint {entry.fingerprint.slice(0, 12)} · run{' '}
        <Link href={threadHref(entry)} className="text-primary underline underline-offset-2">
          {entry.runId}
        </Link>{' '}
        · call {entry.toolCallId}
      </p>
    </div>
  );
}

/**
 * The log below 768 px: one expandable entry per decision (what, outcome, who, when, reason), its
 * button opening to the arguments, edits and ids — no sideways scrolling.
 */
function AuditList({
  entries,
  people,
  open,
  onToggle,
  baseId,
}: {
  entries: AuditEntry[];
  people: People;
  open: string | null;
  onToggle: (id: string) => void;
  baseId: string;
}) {
  return (
    <ul className="divide-y divide-border md:hidden" aria-label="Decisions">
      {entries.map((entry) => {
        const { label, tone } = outcomeOf(entry);
        const expanded = open === entry.id;
        const detailId = `${baseId}-${entry.id}`;
        return (
          <li key={entry.id} data-testid="audit-item" data-kind={entry.kind} data-tool-call-id={entry.toolCallId}>
            <button
              type="button"
              aria-expanded={expanded}
              aria-controls={detailId}
              data-testid="audit-toggle"
              onClick={() => onToggle(entry.id)}
              className="flex w-full min-w-0 flex-col gap-1 px-3 py-3 text-left focus-visible:bg-muted focus-visible:outline-none"
            >
              <span className="flex w-full min-w-0 items-center gap-2">
                <ChevronRight className={cn('size-4 shrink-0 text-muted-foreground transition-transform', expanded && 'rotate-90')} aria-hidden />
                <span className="min-w-0 truncate font-mono text-sm font-medium">{entry.chain.join(' › ') || entry.toolName}</span>
                <Badge tone={tone} className="ml-auto shrink-0">
                  {label}
                </Badge>
              </span>
              <span className="text-sm break-words">
                <bdi>{what(entry)}</bdi>
              </span>
              <span className="flex min-w-0 flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
                <span className="text-foreground">
                  <PersonLabel id={entry.actorId} people={people} />
                </span>
                <span>({entry.actorRole})</span>
                <span aria-hidden>·</span>
                <ZonedTime iso={entry.at} />
              </span>
              <BidiWarning value={[entry.reason, entry.args, entry.editedArgs, entry.resumeData]} compact />
              {entry.reason ? (
                <span className="line-clamp-2 text-sm break-words">
                  “<bdi>{revealBidi(entry.reason)}</bdi>”
                </span>
              ) : null}
            </button>
            {expanded ? (
              <div id={detailId} className="px-3 pb-3">
                <AuditDetail entry={entry} people={people} />
                <Link href={threadHref(entry)} className="mt-2 inline-flex items-center gap-1 text-sm text-primary hover:underline">
                  Open the thread <ExternalLink className="size-3" aria-hidden />
                </Link>
              </div>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

const ACTIVITY_VERB: Record<AuditEntry['activity'][number]['kind'], string> = {
  assigned: 'assigned it to',
  released: 'released it',
  comment: 'noted',
  question: 'asked the requester',
};

/** The call's assignments, notes and questions, as kept in its append-only activity log. */
function ActivityList({ entry, people }: { entry: AuditEntry; people: People }) {
  if (entry.activity.length === 0) return null;
  return (
    <div className="mt-2" data-testid="audit-activity">
      <p className="text-xs font-medium text-muted-foreground">Notes and activity on this call</p>
      <ul className="mt-1 flex flex-col gap-1 text-xs">
        {entry.activity.map((item) => (
          <li key={item.id} data-kind={item.kind}>
            <PersonLabel id={item.actorId} people={people} /> {ACTIVITY_VERB[item.kind]}
            {item.kind === 'assigned' && item.assignee ? (
              <>
                {' '}
                <PersonLabel id={item.assignee} people={people} />
              </>
            ) : null}
            {item.kind === 'released' && item.assignee && item.assignee !== item.actorId ? (
              <>
                {' '}
                from <PersonLabel id={item.assignee} people={people} />
                {item.body ? `: ${item.body}` : null}
              </>
            ) : item.body ? (
              <>
                : “<bdi>{revealBidi(item.body)}</bdi>”
              </>
            ) : null}{' '}
            <span className="text-muted-foreground">
              · <LocalTime iso={item.at} />
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
