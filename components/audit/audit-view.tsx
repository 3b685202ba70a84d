'use client';

import { Download, ScrollText } from 'lucide-react';
import Link from 'next/link';
import { Fragment, useState } from 'react';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { ArgsDiff } from '@/components/ui/args-diff';
import { ArgsTable } from '@/components/ui/args-table';
import { Badge } from '@/components/ui/badge';
import { BidiWarning } from '@/components/ui/bidi-warning';
import { Button } from '@/components/ui/button';
import { formatJson, revealBidi, type People } from '@/components/ui/describe';
import { PersonLabel } from '@/components/ui/person';
import { Input } from '@/components/ui/textarea';
import { LocalTime, RelativeTime } from '@/components/ui/time';
import type { AuditEntry } from '@/lib/audit/queries';

export interface AuditViewProps {
  entries: AuditEntry[];
  nextCursor: string | null;
  filters: { actorId: string; toolName: string; kind: string };
  people: People;
  viewer: Viewer;
  /** The model this server uses, e.g. "openai-compatible llama3.1 at http://…" (never a key). */
  model: string;
}

function outcome(entry: AuditEntry): { label: string; tone: 'accent' | 'neutral' } {
  if (entry.kind === 'resume') return { label: 'Answered', tone: 'neutral' };
  if (entry.kind === 'decline') return { label: entry.actorRole === 'system' ? 'Declined at deadline' : 'Declined', tone: 'neutral' };
  if (entry.kind === 'escalation') return { label: 'Escalated to admins', tone: 'neutral' };
  return { label: entry.editedArgs ? 'Approved with edits' : 'Approved', tone: 'accent' };
}

/** The admins' decision log: filters (a GET form, so they live in the URL), a table, CSV export. */
export function AuditView({ entries, nextCursor, filters, people, viewer, model }: AuditViewProps) {
  const [open, setOpen] = useState<string | null>(null);
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <ScrollText className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 text-sm font-semibold sm:flex-none">Audit</h1>
        <span data-testid="model-in-use" className="hidden min-w-0 flex-1 truncate text-xs text-muted-foreground sm:inline" title="The model this server uses">
          Model: {model}
        </span>
        <AppNav viewer={viewer} current="audit" />
      </header>
      <main className="flex min-w-0 flex-1 flex-col">
        <form method="get" className="grid grid-cols-2 items-end gap-2 border-b border-border px-3 py-2 sm:flex sm:flex-wrap md:px-4" aria-label="Filters">
          <label className="flex flex-col gap-1 text-xs">
            Actor id
            <Input name="actorId" defaultValue={filters.actorId} className="sm:w-40" />
          </label>
          <label className="flex flex-col gap-1 text-xs">
            Tool
            <Input name="toolName" defaultValue={filters.toolName} className="sm:w-40" />
          </label>
          <label className="flex flex-col gap-1 text-xs">
            Outcome
            <select name="kind" defaultValue={filters.kind} className="h-9 rounded-md border border-input bg-background px-2 text-sm">
              <option value="">Any</option>
              <option value="approval">Approved</option>
              <option value="decline">Declined</option>
              <option value="resume">Answered</option>
              <option value="escalation">Escalated</option>
            </select>
          </label>
          <Button type="submit" variant="primary" size="sm">
            Filter
          </Button>
          <Button asChild variant="outline" size="sm" className="sm:ml-auto">
            <a href={`/api/audit?${new URLSearchParams([...query, ['format', 'csv'], ['limit', '500']])}`} data-testid="audit-csv">
              <Download aria-hidden /> CSV
            </a>
          </Button>
        </form>
        {entries.length === 0 ? (
          <p data-testid="audit-empty" className="p-8 text-center text-sm text-muted-foreground">
            No decisions match these filters.
          </p>
        ) : (
          <>
            <AuditList entries={entries} people={people} />
            <div className="hidden overflow-x-auto md:block">
              <table className="w-full text-left text-sm">
                <thead className="border-b border-border text-xs text-muted-foreground">
                  <tr>
                    <th className="px-4 py-2 font-medium">When</th>
                    <th className="px-4 py-2 font-medium">Who</th>
                    <th className="px-4 py-2 font-medium">Tool</th>
                    <th className="px-4 py-2 font-medium">Outcome</th>
                    <th className="px-4 py-2 font-medium">Reason</th>
                    <th className="px-4 py-2 font-medium">Fingerprint</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-border">
                  {entries.map((entry) => {
                    const { label, tone } = outcome(entry);
                    return (
                      <Fragment key={entry.id}>
                        <tr
                          data-testid="audit-row"
                          data-kind={entry.kind}
                          data-tool-call-id={entry.toolCallId}
                          className="cursor-pointer hover:bg-muted/50"
                          onClick={() => setOpen(open === entry.id ? null : entry.id)}
                        >
                          <td className="px-4 py-2 whitespace-nowrap">
                            <RelativeTime iso={entry.at} />
                          </td>
                          <td className="px-4 py-2 whitespace-nowrap">
                            <PersonLabel id={entry.actorId} people={people} /> <span className="text-xs text-muted-foreground">({entry.actorRole})</span>
                          </td>
                          <td className="px-4 py-2 font-mono text-xs">{entry.chain.join(' › ') || entry.toolName}</td>
                          <td className="px-4 py-2">
                            <Badge tone={tone}>{label}</Badge>
                          </td>
                          <td className="max-w-64 truncate px-4 py-2">
                            <BidiWarning value={[entry.reason, entry.args, entry.editedArgs, entry.resumeData]} compact />{' '}
                            <bdi>{entry.reason ? revealBidi(entry.reason) : '—'}</bdi>
                          </td>
                          <td className="px-4 py-2 font-mono text-xs" title={entry.fingerprint}>
                            {entry.fingerprint.slice(0, 12)}
                          </td>
                        </tr>
                        {open === entry.id ? (
                          <tr>
                            <td colSpan={6} className="bg-muted/30 px-4 py-3">
                              {entry.why ? (
                                <p className="mb-3 text-sm" data-testid="audit-why">
                                  <span className="font-medium">Why it waited:</span> <bdi>{revealBidi(entry.why)}</bdi>
                                </p>
                              ) : null}
                              <div className="grid gap-3 md:grid-cols-2">
                                <div>
                                  <p className="text-xs font-medium text-muted-foreground">Arguments the decider saw</p>
                                  <pre className="mt-1 overflow-x-auto rounded bg-background p-2 text-xs">{formatJson(entry.args)}</pre>
                                </div>
                                <div>
                                  <p className="text-xs font-medium text-muted-foreground">
                                    {entry.editedArgs ? `Edited to (fingerprint ${entry.editedFingerprint?.slice(0, 12)})` : entry.resumeData ? 'Answer' : 'No edits'}
                                  </p>
                                  {entry.editedArgs ? (
                                    <ArgsDiff before={entry.args} after={entry.editedArgs} className="mt-1" />
                                  ) : entry.resumeData ? (
                                    <pre className="mt-1 overflow-x-auto rounded bg-background p-2 text-xs">{formatJson(entry.resumeData)}</pre>
                                  ) : (
                                    <p className="mt-1 text-xs text-muted-foreground">Approved or declined as shown.</p>
                                  )}
                                </div>
                              </div>
                              <ActivityList entry={entry} people={people} />
                              <p className="mt-2 text-xs text-muted-foreground">
                                Requested by <PersonLabel id={entry.requester} people={people} /> · run {entry.runId} · call {entry.toolCallId}
                              </p>
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

/**
 * The log below 768 px: one disclosure per decision (tool, outcome, who, when), opening to the
 * reason, arguments, edits and ids — no sideways scrolling.
 */
function AuditList({ entries, people }: { entries: AuditEntry[]; people: People }) {
  return (
    <ul className="divide-y divide-border md:hidden" aria-label="Decisions">
      {entries.map((entry) => {
        const { label, tone } = outcome(entry);
        return (
          <li key={entry.id} data-testid="audit-item" data-kind={entry.kind} data-tool-call-id={entry.toolCallId}>
            <details>
              <summary className="flex cursor-pointer list-none flex-col gap-1 px-3 py-3 focus-visible:bg-muted focus-visible:outline-none [&::-webkit-details-marker]:hidden">
                <span className="flex min-w-0 items-center gap-2">
                  <span className="min-w-0 truncate font-mono text-sm font-medium">{entry.chain.join(' › ') || entry.toolName}</span>
                  <Badge tone={tone} className="ml-auto shrink-0">
                    {label}
                  </Badge>
                </span>
                <span className="flex min-w-0 flex-wrap items-center gap-x-1.5 text-xs text-muted-foreground">
                  <span className="text-foreground">
                    <PersonLabel id={entry.actorId} people={people} />
                  </span>
                  <span>({entry.actorRole})</span>
                  <span aria-hidden>·</span>
                  <RelativeTime iso={entry.at} />
                </span>
                <BidiWarning value={[entry.reason, entry.args, entry.editedArgs, entry.resumeData]} compact />
                {entry.reason ? (
                  <span className="line-clamp-2 text-sm break-words">
                    “<bdi>{revealBidi(entry.reason)}</bdi>”
                  </span>
                ) : null}
              </summary>
              <div className="flex flex-col gap-3 px-3 pb-3 text-sm">
                {entry.why ? (
                  <p data-testid="audit-why">
                    <span className="font-medium">Why it waited:</span> <bdi>{revealBidi(entry.why)}</bdi>
                  </p>
                ) : null}
                <ArgsTable args={entry.args} label="Arguments the decider saw" />
                {entry.editedArgs ? (
                  <div>
                    <p className="text-xs font-medium text-muted-foreground">Edited</p>
                    <ArgsDiff before={entry.args} after={entry.editedArgs} />
                  </div>
                ) : null}
                {entry.resumeData ? (
                  <div>
                    <p className="text-xs font-medium text-muted-foreground">Answer</p>
                    <ArgsTable args={entry.resumeData} label="Answer" />
                  </div>
                ) : null}
                <ActivityList entry={entry} people={people} />
                <p className="text-xs break-all text-muted-foreground">
                  Requested by <PersonLabel id={entry.requester} people={people} /> · fingerprint {entry.fingerprint.slice(0, 12)} · run {entry.runId}
                </p>
              </div>
            </details>
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
            {item.body ? (
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
