'use client';

import { ListFilter, X } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { cloneElement, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { Input } from '@/components/ui/textarea';
import { INBOX_FILTER_KEYS, type InboxFilterValues } from './filter-values';

export type { InboxFilterValues } from './filter-values';

const OUTCOMES: Record<string, string> = { approval: 'Approved', decline: 'Declined', resume: 'Answered', escalation: 'Escalated' };

/**
 * Server-side search of the inbox lists: a GET form, so the filter lives in the URL (shareable,
 * kept on reload) and applies to every page of the list, not only the rows loaded. The Done tab
 * adds who decided and the outcome. Closed by default on narrow screens; the active filters show
 * as a summary with a Clear link either way.
 *
 * @param list the list the form searches: waiting (`/inbox`), outcome unknown or Done (`view=done`)
 */
export function InboxFilters({
  list,
  values,
  options,
  sort = 'newest',
  keep = {},
}: {
  list: 'pending' | 'unknown' | 'done';
  values: InboxFilterValues;
  options: { agents: string[]; tools: string[] };
  /** The waiting lists' order, kept when the filters change. */
  sort?: string;
  /** Other parameters of the waiting lists kept when the filters change: the queue and the search (`q`). */
  keep?: Record<string, string>;
}) {
  const order: Record<string, string> = list !== 'done' && sort !== 'newest' ? { sort, ...keep } : { ...keep };
  return (
    <SearchFilters
      action="/inbox"
      hidden={list === 'done' ? { view: 'done' } : list === 'unknown' ? { status: 'unknown', ...order } : order}
      decided={list === 'done'}
      values={values}
      options={options}
    />
  );
}

/**
 * The filter form itself, for any list page that reads these names from its URL (the inbox's
 * lists, the audit log): tool, agent, requester, and — for decisions (`decided`) — who decided and
 * the outcome; a date range. `hidden` fields keep the page's own parameters (the list shown).
 */
export function SearchFilters({
  action,
  hidden,
  decided,
  values,
  options,
}: {
  action: string;
  hidden: Record<string, string>;
  decided: boolean;
  values: InboxFilterValues;
  options: { agents: string[]; tools: string[] };
}) {
  const done = decided;
  const keys = INBOX_FILTER_KEYS.filter((key) => done || (key !== 'person' && key !== 'kind'));
  const active = keys.filter((key) => values[key]);
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const panelId = useId();
  const kept = new URLSearchParams(hidden);
  const clearHref = kept.size > 0 ? `${action}?${kept}` : action;
  const describe = (key: (typeof keys)[number]) =>
    key === 'kind' ? `outcome ${OUTCOMES[values.kind] ?? values.kind}` : `${LABELS[key].toLowerCase()} ${values[key]}`;

  return (
    <div className="flex min-w-0 flex-col gap-2" data-testid="inbox-filters">
      <div className="flex flex-wrap items-center gap-2">
        <Button type="button" variant="outline" size="sm" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)} data-testid="inbox-filters-toggle">
          <ListFilter aria-hidden /> Filters{active.length > 0 ? ` (${active.length})` : ''}
        </Button>
        {active.length > 0 ? (
          <p className="flex min-w-0 flex-wrap items-center gap-x-2 text-xs text-muted-foreground" data-testid="inbox-filters-summary">
            <span className="min-w-0 break-words">Showing {active.map(describe).join(' · ')}</span>
            <Link href={clearHref} className="inline-flex items-center gap-0.5 text-primary hover:underline" data-testid="inbox-filters-clear">
              <X className="size-3" aria-hidden /> Clear
            </Link>
          </p>
        ) : null}
      </div>
      <form
        action={action}
        method="get"
        onSubmit={(event) => {
          // Only the filters that are set go into the URL, so a shared link stays short.
          event.preventDefault();
          const params = new URLSearchParams();
          for (const [key, value] of new FormData(event.currentTarget)) {
            if (typeof value === 'string' && value.trim()) params.set(key, value.trim());
          }
          setOpen(false);
          router.push(`${action}${params.size > 0 ? `?${params}` : ''}`);
        }}
        id={panelId}
        hidden={!open}
        aria-label={done ? 'Search all decisions' : 'Search all calls'}
        className={cn('grid grid-cols-2 items-end gap-2 rounded-md border border-border p-2 sm:flex sm:flex-wrap')}
      >
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Field label="Tool">
          <select name="toolName" defaultValue={values.toolName} className={SELECT}>
            <option value="">Any</option>
            {withCurrent(options.tools, values.toolName).map((tool) => (
              <option key={tool} value={tool}>
                {tool}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Agent">
          <select name="agentId" defaultValue={values.agentId} className={SELECT}>
            <option value="">Any</option>
            {withCurrent(options.agents, values.agentId).map((agent) => (
              <option key={agent} value={agent}>
                {agent}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Requester">
          <Input name="requester" defaultValue={values.requester} placeholder="Name or email" className="sm:w-44" />
        </Field>
        {done ? (
          <>
            <Field label="Decided by">
              <Input name="person" defaultValue={values.person} placeholder="Name or email" className="sm:w-44" />
            </Field>
            <Field label="Outcome">
              <select name="kind" defaultValue={values.kind} className={SELECT}>
                <option value="">Any</option>
                {Object.entries(OUTCOMES).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
          </>
        ) : null}
        <Field label={done ? 'Decided from' : 'Asked from'}>
          <Input type="date" name="from" defaultValue={values.from} className="sm:w-40" />
        </Field>
        <Field label={done ? 'Decided until' : 'Asked until'}>
          <Input type="date" name="to" defaultValue={values.to} className="sm:w-40" />
        </Field>
        <Button type="submit" variant="primary" size="sm" className="col-span-2 sm:col-span-1" data-testid="inbox-filters-apply">
          Apply
        </Button>
      </form>
    </div>
  );
}

const LABELS: Record<(typeof INBOX_FILTER_KEYS)[number], string> = {
  toolName: 'Tool',
  agentId: 'Agent',
  requester: 'Requester',
  person: 'Decided by',
  kind: 'Outcome',
  from: 'From',
  to: 'To',
};

const SELECT = 'h-9 w-full rounded-md border border-input bg-background px-2 text-sm sm:w-40';

/** The options, plus the current value when a shared link names one this server does not list. */
function withCurrent(options: string[], current: string): string[] {
  return current && !options.includes(current) ? [...options, current] : options;
}

/**
 * A labelled control: the label points at the control by id (not by wrapping it), so the control's
 * name is exactly the label — a select's chosen option is not read as part of it.
 */
function Field({ label, children }: { label: string; children: React.ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium">
        {label}
      </label>
      {cloneElement(children, { id })}
    </div>
  );
}
