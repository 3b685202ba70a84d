'use client';

import { ArrowDownUp, Inbox as InboxIcon, Search, Signature } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { continueRun } from './continue-run';
import { InboxDetail, type DetailMode } from './inbox-detail';
import { InboxFilters, type InboxFilterValues } from './inbox-filters';
import { InboxRowButton } from './inbox-row';
import { sendAssignment, type Reviewer } from './assignment';
import { ShortcutsDialog } from './shortcuts';
import { BulkBar, decideEach, RowCheckbox, useSelection, type BulkOutcome } from './bulk';
import { QUEUE_TABS, queueHref, QueueTabs } from './queues';
import { canDecide, type InboxAction, type InboxItem } from './types';
import type { InboxQueue } from '@/lib/inbox/queries';
import { INBOX_SORTS, type InboxSort } from '@/lib/inbox/sorts';
import type { FriendlyError } from '@/components/ui/api-error';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { callTitle, personName, summarizeArgs, type People } from '@/components/ui/describe';
import { Input } from '@/components/ui/textarea';
import { useHydrated } from '@/components/ui/use-hydrated';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';
import { NotificationsButton } from './waiting-badge';

export interface InboxViewProps {
  items: InboxItem[];
  /** Which list: calls waiting on a person, or calls whose outcome is unknown after a crash. */
  status: 'pending' | 'unknown';
  /** Cursor of the next (older) page, when there is one; `olderPage` when this is not the newest. */
  nextCursor: string | null;
  olderPage: boolean;
  viewer: Viewer;
  people: People;
  /** The queue shown (tabs "For me", "Unassigned", "All", "My requests") and the count of each. */
  queue: InboxQueue;
  /** The order of the list, from the URL (`?sort=`; default newest first). */
  sort?: InboxSort;
  queueCounts: Record<InboxQueue, number>;
  queueCap: number;
  /** Reviewers and admins a call can be assigned to. */
  reviewers: Reviewer[];
  /** The call to open first (`?call=<id>`), e.g. after claiming it; else the newest. */
  initialCallId?: string;
  /** Server-side filters from the URL, and what they offer (see InboxFilters). */
  searchFilters?: InboxFilterValues;
  filterOptions?: { agents: string[]; tools: string[] };
  /** Filters of the link that could not be read and were left out, said in a sentence (null: none). */
  filterError?: string | null;
}

type KindFilter = 'all' | 'approval' | 'suspension';

const NO_DEADLINE = '9999-12-31T00:00:00.000Z';

/** The list order of the server (lib/inbox/queries.ts inboxPageQuery), for rows kept on screen after they left it. */
function compareFor(sort: InboxSort): (a: InboxItem, b: InboxItem) => number {
  if (sort === 'oldest') return (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  if (sort === 'deadline') {
    return (a, b) =>
      (a.deadlineAt ?? NO_DEADLINE).localeCompare(b.deadlineAt ?? NO_DEADLINE) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  }
  return (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

const SORT_LABELS: Record<InboxSort, string> = { newest: 'Newest first', oldest: 'Oldest first', deadline: 'Deadline soonest' };

/**
 * The list's order, kept in the URL (`?sort=oldest|deadline`; newest first without it) with the
 * queue and filters; changing it starts again at the first page (a cursor belongs to one order).
 */
function SortSelect({ value, listQuery }: { value: InboxSort; listQuery: URLSearchParams }) {
  const router = useRouter();
  return (
    <label className="flex items-center gap-1.5 text-sm">
      <ArrowDownUp className="size-4 text-muted-foreground" aria-hidden />
      <span className="sr-only sm:not-sr-only sm:text-muted-foreground">Sort</span>
      <select
        value={value}
        data-testid="inbox-sort"
        onChange={(event) => {
          const params = new URLSearchParams(listQuery);
          params.delete('cursor');
          if (event.target.value === 'newest') params.delete('sort');
          else params.set('sort', event.target.value);
          router.push(params.size > 0 ? `/inbox?${params}` : '/inbox');
        }}
        className="h-8 rounded-md border border-input bg-background px-2 text-sm"
      >
        {INBOX_SORTS.map((key) => (
          <option key={key} value={key}>
            {SORT_LABELS[key]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Without the live feed, how often the list looks for new and decided calls, in ms. */
const REFRESH_MS = 5_000;

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  // A checkbox takes no text: the shortcuts stay on while a row's checkbox has focus.
  if (el.tagName === 'INPUT' && ['checkbox', 'radio', 'button'].includes((el as HTMLInputElement).type)) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

function matches(item: InboxItem, query: string, people: People): boolean {
  if (!query) return true;
  const haystack = [item.toolName, item.agentId, item.chain.join(' '), personName(item.requester, people), item.requester, summarizeArgs(item.args, 500)]
    .join(' ')
    .toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .every((word) => haystack.includes(word));
}

/**
 * The reviewer's queue, like a mail client: rows on the left, the selected call's detail on the
 * right (inline under the row on narrow screens). Keys: j/k move, a approve, d decline, e edit, / search.
 */
export function InboxView({ items, status, nextCursor, olderPage, viewer, people, queue, sort = 'newest', queueCounts, queueCap, reviewers, initialCallId, searchFilters, filterOptions, filterError }: InboxViewProps) {
  const filtered = Boolean(searchFilters && Object.values(searchFilters).some(Boolean));
  // The list, its queue and its filters, for the page links (a cursor is only valid with the same filters).
  const listQuery = new URLSearchParams([
    ...(status === 'unknown' ? [['status', status]] : []),
    ...(status === 'pending' && queue !== 'all' ? [['queue', queue]] : []),
    ...(sort !== 'newest' ? [['sort', sort]] : []),
    ...Object.entries(searchFilters ?? {}).filter(([, value]) => value),
  ]);
  const router = useRouter();
  const [kind, setKind] = useState<KindFilter>('all');
  const [query, setQuery] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(
    (initialCallId && items.some((item) => item.id === initialCallId) ? initialCallId : items[0]?.id) ?? null,
  );
  // A navigation to another queue with `?call=` (the page stays mounted) opens that call.
  useEffect(() => {
    if (initialCallId && items.some((item) => item.id === initialCallId)) setSelectedId(initialCallId);
    // Only when the URL's call changes, not on every live refresh.
  }, [initialCallId]);
  const [acting, setActing] = useState<{ id: string; type: InboxAction['type'] } | null>(null);
  const [errors, setErrors] = useState<Record<string, FriendlyError>>({});
  // Rows decided by someone else while we looked at them stay visible (greyed) to explain the conflict.
  const [stale, setStale] = useState<Record<string, InboxItem>>({});
  const [mode, setMode] = useState<{ id: string; mode: DetailMode } | null>(null);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const rowRefs = useRef(new Map<string, HTMLButtonElement>());
  const searchRef = useRef<HTMLInputElement>(null);
  const [focusId, setFocusId] = useState<string | null>(initialCallId && items.some((item) => item.id === initialCallId) ? initialCallId : null);
  const hydrated = useHydrated();

  const all = useMemo(() => {
    const live = new Set(items.map((item) => item.id));
    const ghosts = Object.values(stale).filter((item) => !live.has(item.id));
    // In the server's order (the URL's sort), ghosts where they were.
    return [...items, ...ghosts].sort(compareFor(sort));
  }, [items, stale, sort]);

  // Counted on this page (the list is keyset-paged, without a total): "at least" when older pages follow.
  const counts = useMemo(() => {
    const atLeast = (n: number) => (nextCursor ? `${n}+` : String(n));
    return {
      all: atLeast(items.length),
      approval: atLeast(items.filter((item) => item.kind === 'approval').length),
      suspension: atLeast(items.filter((item) => item.kind === 'suspension').length),
    };
  }, [items, nextCursor]);
  const visible = useMemo(
    () => all.filter((item) => (kind === 'all' || item.kind === kind) && matches(item, query.trim(), people)),
    [all, kind, query, people],
  );

  // Keep a selection: when the selected row leaves (decided), move to its neighbour.
  const lastIndex = useRef(0);
  const selectedIndex = visible.findIndex((item) => item.id === selectedId);
  if (selectedIndex >= 0) lastIndex.current = selectedIndex;
  const selected = selectedIndex >= 0 ? visible[selectedIndex] : (visible[Math.min(lastIndex.current, visible.length - 1)] ?? null);

  useEffect(() => {
    if (!focusId) return;
    rowRefs.current.get(focusId)?.focus();
    setFocusId(null);
  }, [focusId, visible]);

  const selection = useSelection(visible);
  const [bulkBusy, setBulkBusy] = useState(false);
  const [bulkOutcomes, setBulkOutcomes] = useState<BulkOutcome[] | null>(null);

  // Live updates from /api/inbox/events (PostgreSQL NOTIFY, any server); polling only while it is down.
  const actingRef = useRef(false);
  actingRef.current = acting !== null || bulkBusy;
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource('/api/inbox/events');
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(source.readyState === EventSource.OPEN);
    source.onmessage = () => {
      if (!actingRef.current) router.refresh();
    };
    return () => source.close();
  }, [router]);
  useEffect(() => {
    if (acting || live) return;
    const refresh = () => {
      if (document.visibilityState === 'visible') router.refresh();
    };
    const timer = setInterval(refresh, REFRESH_MS);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [acting, live, router]);

  const select = useCallback((id: string, focus = false) => {
    setSelectedId(id);
    setMode((open) => (open?.id === id ? open : null));
    if (focus) setFocusId(id);
  }, []);

  const act = useCallback(
    async (item: InboxItem, action: InboxAction) => {
      if (acting) return;
      setActing({ id: item.id, type: action.type });
      setErrors(({ [item.id]: _gone, ...rest }) => rest);
      const base = `/api/runs/${encodeURIComponent(item.runId)}/tool-calls/${encodeURIComponent(item.toolCallId)}`;
      const outcome =
        action.type === 'answer'
          ? await continueRun(`${base}/resume`, { resumeData: action.resumeData }, people, viewer.id)
          : await continueRun(
              `${base}/decision`,
              {
                approved: action.type === 'approve',
                fingerprint: item.fingerprint,
                ...(action.type === 'decline' && action.reason ? { reason: action.reason } : {}),
                ...(action.type === 'withdraw' ? { withdraw: true } : {}),
                ...(action.type === 'approve' && action.args !== undefined ? { args: action.args } : {}),
              },
              people,
              viewer.id,
            );
      setActing(null);
      if (!outcome.ok) {
        setErrors((current) => ({ ...current, [item.id]: outcome.error }));
        // The call is no longer pending (decided elsewhere, or decided and then failed): keep the row to explain.
        if (['ALREADY_DECIDED', 'NO_SNAPSHOT_FOUND', 'TOOL_CALL_NOT_SUSPENDED', 'STREAM_ERROR'].includes(outcome.error.code)) {
          setStale((current) => ({ ...current, [item.id]: item }));
          router.refresh();
        }
        return;
      }
      const verb = action.type === 'approve' ? 'Approved' : action.type === 'decline' ? 'Declined' : action.type === 'withdraw' ? 'Withdrawn' : 'Answered';
      toast.success(`${verb}: ${callTitle(item)}`, {
        description: outcome.vote
          ? `Your approval counted: ${outcome.vote.approvals} of ${outcome.vote.quorum}. It runs once ${outcome.vote.quorum - outcome.vote.approvals} more reviewer(s) approve.`
          : outcome.paused
            ? 'The run continued and is waiting again.'
            : outcome.text || 'The run continued.',
      });
      setMode(null);
      setReasons(({ [item.id]: _done, ...rest }) => rest);
      // A vote of a quorum leaves the call waiting: stay on it, so the new count shows.
      if (outcome.vote) {
        router.refresh();
        return;
      }
      // Move on to the next call, as a mail client does after archiving.
      const index = visible.findIndex((row) => row.id === item.id);
      const next = visible[index + 1] ?? visible[index - 1];
      if (next) select(next.id, true);
      router.refresh();
    },
    [acting, people, viewer.id, router, visible, select],
  );

  /** Decides every selected call on its own (see decideEach); the outcomes list says how each went. */
  const decideSelected = useCallback(
    async (approved: boolean, reason?: string) => {
      const chosen = [...selection.selected.values()];
      if (chosen.length === 0 || bulkBusy) return;
      setBulkBusy(true);
      setBulkOutcomes(null);
      const outcomes = await decideEach(chosen, { approved, reason }, people, viewer.id);
      setBulkBusy(false);
      setBulkOutcomes(outcomes);
      selection.clear();
      router.refresh();
    },
    [selection, bulkBusy, people, viewer.id, router],
  );

  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const assignSelected = useCallback(
    async (item: InboxItem, assignee: string | null) => {
      const refused = await sendAssignment(item, assignee, people, viewer.id);
      if (refused) toast.error(refused.message, { description: refused.next });
      else if (queue === 'unassigned' && assignee === viewer.id) router.push(`/inbox?queue=mine&call=${encodeURIComponent(item.id)}`);
      else {
        toast.success(assignee ? 'Assigned to you.' : 'Released: nobody works on it now.');
        router.refresh();
      }
    },
    [people, viewer.id, queue, router],
  );

  // Keyboard triage: every key is listed in INBOX_SHORTCUTS (the `?` sheet).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target) || shortcutsOpen) return;
      const index = selected ? visible.findIndex((item) => item.id === selected.id) : -1;
      const down = event.key === 'j' || event.key === 'ArrowDown';
      if (down || event.key === 'k' || event.key === 'ArrowUp') {
        const next = visible[down ? index + 1 : Math.max(index - 1, 0)];
        if (next) {
          event.preventDefault();
          select(next.id, true);
        }
      } else if (event.key === '?') {
        event.preventDefault();
        setShortcutsOpen(true);
      } else if (status === 'pending' && ['1', '2', '3', '4'].includes(event.key)) {
        event.preventDefault();
        router.push(queueHref(QUEUE_TABS[Number(event.key) - 1].key, sort));
      } else if (event.key === 'Escape' && selection.selected.size > 0) {
        selection.clear();
      } else if ((event.key === 'c' || event.key === 'u') && selected && selected.status === 'pending' && !stale[selected.id]) {
        event.preventDefault();
        if (event.key === 'c' && canDecide(selected, viewer) && selected.assignedTo !== viewer.id) void assignSelected(selected, viewer.id);
        if (event.key === 'u' && selected.assignedTo) void assignSelected(selected, null);
      } else if (event.key === 'w' && selected && !stale[selected.id] && selected.kind === 'approval' && selected.requester === viewer.id) {
        event.preventDefault();
        void act(selected, { type: 'withdraw' });
      } else if ((event.key === 'x' || event.key === 'X') && selected && selected.kind === 'approval' && selected.status === 'pending') {
        // With Shift held a keyboard sends "X": the range from the last one.
        event.preventDefault();
        selection.toggle(selected, event.shiftKey);
      } else if (event.key === '/') {
        event.preventDefault();
        searchRef.current?.focus();
      } else if (selected && !stale[selected.id] && selected.kind === 'approval' && canDecide(selected, viewer)) {
        if (event.key === 'a') {
          event.preventDefault();
          void act(selected, { type: 'approve' });
        } else if (event.key === 'd') {
          event.preventDefault();
          setMode({ id: selected.id, mode: 'decline' });
        } else if (event.key === 'e') {
          event.preventDefault();
          setMode({ id: selected.id, mode: 'edit' });
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [visible, selected, stale, act, select, viewer.id, selection, shortcutsOpen, status, router, assignSelected]);

  const filters: { key: KindFilter; label: string }[] = [
    { key: 'all', label: 'All kinds' },
    { key: 'approval', label: 'Approvals' },
    { key: 'suspension', label: 'Questions' },
  ];

  return (
    <div className="flex h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        {/* Not on phone widths: the title, its count and the buttons need the room. */}
        <Signature className="hidden size-5 text-primary sm:block" aria-hidden />
        <h1 className="flex min-w-0 flex-1 items-center gap-2 text-sm font-semibold">
          Inbox
          <span className="rounded-full bg-muted px-2 py-0.5 text-xs font-medium text-muted-foreground" aria-hidden data-testid="inbox-count">
            {counts.all}
          </span>
          <span className="sr-only">{counts.all} waiting</span>
        </h1>
        <ShortcutsDialog open={shortcutsOpen} onOpenChange={setShortcutsOpen} />
        <NotificationsButton />
        <AppNav viewer={viewer} current="inbox" />
      </header>

      <main className="flex min-h-0 flex-1 flex-col">
        <div className="flex shrink-0 flex-wrap items-center gap-2 border-b border-border px-3 py-2 md:px-4">
          {status === 'pending' ? <QueueTabs current={queue} counts={queueCounts} cap={queueCap} sort={sort} /> : null}
          <SortSelect value={sort} listQuery={listQuery} />
          <div role="group" aria-label="Show" className="flex rounded-md border border-border p-0.5">
            {filters.map((filter) => (
              <button
                key={filter.key}
                type="button"
                aria-pressed={kind === filter.key}
                onClick={() => setKind(filter.key)}
                className={cn(
                  'rounded px-2.5 py-1 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                  kind === filter.key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
                )}
              >
                {filter.label} <span className="text-xs text-muted-foreground">{counts[filter.key]}</span>
              </button>
            ))}
          </div>
          <nav aria-label="Lists" className="flex rounded-md border border-border p-0.5 text-sm">
            {(
              [
                ['pending', 'Waiting', '/inbox'],
                ['unknown', 'Outcome unknown', '/inbox?status=unknown'],
                ['done', 'Done', '/inbox?view=done'],
              ] as const
            ).map(([key, label, href]) => (
              <Link
                key={key}
                href={href}
                aria-current={status === key ? 'page' : undefined}
                data-testid={`inbox-list-${key}`}
                className={cn(
                  'rounded px-2.5 py-1 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                  status === key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
                )}
              >
                {label}
              </Link>
            ))}
          </nav>
          <div className="relative min-w-40 flex-1 sm:max-w-xs">
            <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
            <label htmlFor="inbox-search" className="sr-only">
              Filter the calls on this page by tool, agent, requester or arguments
            </label>
            <Input
              id="inbox-search"
              ref={searchRef}
              type="search"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape') event.currentTarget.blur();
              }}
              placeholder="Search  ( / )"
              className="pl-8"
            />
          </div>
          {searchFilters && filterOptions ? (
            <div className="w-full">
              <InboxFilters list={status} values={searchFilters} options={filterOptions} sort={sort} />
            </div>
          ) : null}
          {filterError ? (
            <p role="alert" className="w-full text-sm text-destructive" data-testid="inbox-filters-error">
              {filterError}
            </p>
          ) : null}
        </div>

        <BulkBar
          count={selection.selected.size}
          busy={bulkBusy}
          outcomes={bulkOutcomes}
          onApprove={() => void decideSelected(true)}
          onDecline={(reason) => void decideSelected(false, reason)}
          onClear={selection.clear}
          onDismissOutcomes={() => setBulkOutcomes(null)}
        />

        {items.length === 0 && all.length === 0 ? (
          <div data-testid="inbox-empty" className="flex flex-1 flex-col items-center justify-center gap-2 p-8 text-center">
            <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
              <InboxIcon className="size-6" aria-hidden />
            </div>
            <p className="text-lg font-semibold">
              {filtered ? 'No calls match these filters' : status === 'unknown' ? 'No call with an unknown outcome' : 'Nothing waiting — nice'}
            </p>
            <p className="max-w-sm text-sm text-muted-foreground">
              {status === 'pending' && !filtered ? QUEUE_TABS.find((tab) => tab.key === queue)?.empty : 'New approvals and questions from agents show up here by themselves.'}
            </p>
          </div>
        ) : (
          // The detail pane is positioned against this box, outside the list's scroller, so it stays put while the list scrolls.
          // Rows ignore the pointer until hydrated: an earlier click would do nothing (and test drivers wait).
          <div className={cn('relative flex min-h-0 flex-1', !hydrated && 'pointer-events-none')}>
            <div className="min-h-0 w-full overflow-y-auto lg:w-[26rem] lg:shrink-0 lg:border-r lg:border-border">
              {visible.length === 0 ? (
                <p className="p-6 text-sm text-muted-foreground">No calls match these filters.</p>
              ) : (
                <ul aria-label="Pending calls" className="divide-y divide-border">
                  {visible.map((item) => {
                    const isSelected = selected?.id === item.id;
                    const isStale = Boolean(stale[item.id]);
                    return (
                      <li
                        key={item.id}
                        data-testid="inbox-row"
                        data-tool-name={item.toolName}
                        data-tool-call-id={item.toolCallId}
                        data-run-id={item.runId}
                        data-kind={item.kind}
                        data-selected={isSelected || undefined}
                        data-checked={selection.selected.has(item.id) || undefined}
                      >
                        <div className="flex items-stretch">
                        {item.kind === 'approval' && item.status === 'pending' && !isStale ? (
                          <div className="flex items-start pt-3.5 pl-3">
                            <RowCheckbox
                              item={item}
                              label={`Select ${item.toolName} from ${personName(item.requester, people, viewer.id)}`}
                              checked={selection.selected.has(item.id)}
                              onToggle={selection.toggle}
                            />
                          </div>
                        ) : null}
                        <div className="min-w-0 flex-1">
                        <InboxRowButton
                          item={item}
                          people={people}
                          viewerId={viewer.id}
                          selected={isSelected}
                          stale={isStale}
                          onSelect={() => select(item.id)}
                          buttonRef={(el) => {
                            if (el) rowRefs.current.set(item.id, el);
                            else rowRefs.current.delete(item.id);
                          }}
                        />
                        </div>
                        </div>
                        {isSelected && item.status === 'unknown' ? (
                          <div className="border-t border-border bg-muted/20 p-4 text-sm lg:absolute lg:inset-y-0 lg:right-0 lg:left-[26rem] lg:overflow-y-auto lg:border-t-0 lg:bg-background">
                            <h2 className="font-semibold">{callTitle(item)}</h2>
                            <p className="mt-2 text-muted-foreground">
                              The server stopped while this call was running, so whether it finished is unknown. It was not retried
                              and never will be automatically: check the system it acts on before asking the agent again.
                            </p>
                            <pre className="mt-3 overflow-x-auto rounded-md bg-muted p-3 font-mono text-xs">{JSON.stringify(item.args, null, 2)}</pre>
                          </div>
                        ) : isSelected ? (
                          <div className="border-t border-border bg-muted/20 lg:absolute lg:inset-y-0 lg:right-0 lg:left-[26rem] lg:overflow-y-auto lg:border-t-0 lg:bg-background">
                            <InboxDetail
                              item={item}
                              people={people}
                              viewerId={viewer.id}
                              viewerRole={viewer.role}
                              reviewers={reviewers}
                              onAssigned={(assignee) => {
                                // A call claimed from "Unassigned" leaves that queue: follow it to "For me".
                                if (queue === 'unassigned' && assignee === viewer.id) router.push(`/inbox?queue=mine&call=${encodeURIComponent(item.id)}`);
                                else router.refresh();
                              }}
                              acting={acting?.id === item.id ? acting.type : null}
                              error={errors[item.id] ?? null}
                              stale={isStale}
                              mode={mode?.id === item.id ? mode.mode : 'idle'}
                              onModeChange={(next) => setMode(next === 'idle' ? null : { id: item.id, mode: next })}
                              reason={reasons[item.id] ?? ''}
                              onReasonChange={(reason) => setReasons((current) => ({ ...current, [item.id]: reason }))}
                              onAction={(action) => void act(item, action)}
                              onDismissError={() => setErrors(({ [item.id]: _gone, ...rest }) => rest)}
                              onRefresh={() => {
                                setStale(({ [item.id]: _gone, ...rest }) => rest);
                                setErrors(({ [item.id]: _gone, ...rest }) => rest);
                                router.refresh();
                              }}
                            />
                          </div>
                        ) : null}
                      </li>
                    );
                  })}
                </ul>
              )}
              {nextCursor || olderPage ? (
                <nav aria-label="Pages" className="flex gap-2 border-t border-border p-3 text-sm">
                  {olderPage ? (
                    <Link href={`/inbox?${listQuery}`} className="text-primary hover:underline">
                      {sort === 'newest' ? '← Newest' : '← First page'}
                    </Link>
                  ) : null}
                  {nextCursor ? (
                    <Link
                      href={`/inbox?${new URLSearchParams([...listQuery, ['cursor', nextCursor]])}`}
                      className="ml-auto text-primary hover:underline"
                      data-testid="inbox-older"
                    >
                      {sort === 'newest' ? 'Older calls →' : 'Next page →'}
                    </Link>
                  ) : null}
                </nav>
              ) : null}
            </div>
            {selected ? null : (
              <p className="absolute inset-y-0 right-0 left-[26rem] hidden items-center justify-center text-sm text-muted-foreground lg:flex">
                Select a call to see its details.
              </p>
            )}
          </div>
        )}
      </main>
    </div>
  );
}
