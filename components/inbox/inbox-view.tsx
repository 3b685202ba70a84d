'use client';

import { Signature } from 'lucide-react';
import { useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { continueRun } from './continue-run';
import { InboxDetail, type DetailMode } from './inbox-detail';
import type { InboxFilterValues } from './inbox-filters';
import { InboxRowButton } from './inbox-row';
import { sendAssignment, type Reviewer } from './assignment';
import { ShortcutsDialog } from './shortcuts';
import { BulkBar, decideEach, RowCheckbox, useSelection, type BulkOutcome } from './bulk';
import { QUEUE_TABS, queueHref } from './queues';
import { compareFor } from './sort';
import { InboxToolbar, type KindFilter } from './toolbar';
import { toolResultText } from './tool-result';
import { useInboxKeys } from './use-inbox-keys';
import { useInboxRefresh } from './live-refresh';
import { InboxEmpty, InboxPager, UnknownOutcome } from './list-parts';
import type { InboxAction, InboxItem } from './types';
import { LEFT_WHILE_OPEN, useLeftWhileOpen } from './use-left-while-open';
import type { InboxCounts, InboxQueue } from '@/lib/inbox/queries';
import type { InboxSort } from '@/lib/inbox/sorts';
import type { FriendlyError } from '@/components/ui/api-error';
import { cn } from '@/components/ui/cn';
import { callTitle, personName, type People } from '@/lib/present/describe';
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
  /** Waiting calls per queue and per kind of the queue shown, under the list's filters and search (inboxQueueCounts). */
  queueCounts: InboxCounts;
  queueCap: number;
  /** Reviewers and admins a call can be assigned to. */
  reviewers: Reviewer[];
  /** The call to open first (`?call=<id>`), e.g. after claiming it; else the newest. */
  initialCallId?: string;
  /** The search box's words (`?q=`), searched on the server like the filters. */
  search?: string;
  /** Server-side filters from the URL, and what they offer (see InboxFilters). */
  searchFilters?: InboxFilterValues;
  filterOptions?: { agents: string[]; tools: string[] };
  /** Filters of the link that could not be read and were left out, said in a sentence (null: none). */
  filterError?: string | null;
}

/**
 * The reviewer's queue, like a mail client: rows on the left, the selected call's detail on the
 * right (inline under the row on narrow screens). Keys: j/k move, a approve, d decline, e edit, / search.
 */
export function InboxView({ items, status, nextCursor, olderPage, viewer, people, queue, sort = 'newest', queueCounts, queueCap, reviewers, initialCallId, search = '', searchFilters, filterOptions, filterError }: InboxViewProps) {
  const filtered = Boolean(search || (searchFilters && Object.values(searchFilters).some(Boolean)));
  // The list, its queue and its filters, for the page links (a cursor is only valid with the same filters).
  const listQuery = new URLSearchParams([
    ...(status === 'unknown' ? [['status', status]] : []),
    ...(status === 'pending' && queue !== 'all' ? [['queue', queue]] : []),
    ...(sort !== 'newest' ? [['sort', sort]] : []),
    ...Object.entries(searchFilters ?? {}).filter(([, value]) => value),
    ...(search ? [['q', search]] : []),
  ]);
  const router = useRouter();
  const [kind, setKind] = useState<KindFilter>('all');
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
  // The whole query (queue, filters, sort, page cursor): a list after any navigation is not a refresh.
  const { ownMove } = useLeftWhileOpen({ items, selectedId, listQuery: useSearchParams().toString() }, (item) => {
    setStale((current) => ({ ...current, [item.id]: item }));
    setErrors((current) => ({ ...current, [item.id]: LEFT_WHILE_OPEN }));
  });

  const all = useMemo(() => {
    const live = new Set(items.map((item) => item.id));
    const ghosts = Object.values(stale).filter((item) => !live.has(item.id));
    // In the server's order (the URL's sort), ghosts where they were.
    return [...items, ...ghosts].sort(compareFor(sort));
  }, [items, stale, sort]);

  // The waiting list counts on the server, under the same queue, filters and search as the list
  // (the header and the tab of the queue shown say the same number); the outcome-unknown list counts
  // the page shown, "at least" when older pages follow.
  const counts = useMemo(() => {
    if (status === 'pending') {
      const text = (n: number) => (n >= queueCap ? `${queueCap - 1}+` : String(n));
      return { all: text(queueCounts[queue]), approval: text(queueCounts.kinds.approval), suspension: text(queueCounts.kinds.suspension) };
    }
    const atLeast = (n: number) => (nextCursor ? `${n}+` : String(n));
    return {
      all: atLeast(items.length),
      approval: atLeast(items.filter((item) => item.kind === 'approval').length),
      suspension: atLeast(items.filter((item) => item.kind === 'suspension').length),
    };
  }, [status, queueCounts, queue, queueCap, items, nextCursor]);
  const visible = useMemo(() => all.filter((item) => kind === 'all' || item.kind === kind), [all, kind]);

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

  // Live updates from /api/inbox/events; polling only while that feed is down.
  useInboxRefresh(acting !== null || bulkBusy);

  const select = useCallback((id: string, focus = false) => {
    setSelectedId(id);
    setMode((open) => (open?.id === id ? open : null));
    if (focus) setFocusId(id);
  }, []);

  const act = useCallback(
    async (item: InboxItem, action: InboxAction) => {
      if (acting) return;
      ownMove(item.id);
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
      // An edited call is named by what ran: its edited arguments (the stored description is of the asked ones).
      const edited = action.type === 'approve' && action.args !== undefined;
      const title = callTitle(edited ? { toolName: item.toolName, args: action.args } : item);
      // The decision went through, but the tool did not do it: say so, not a green "Approved".
      const result = outcome.result ? toolResultText(outcome.result) : null;
      if (result && result.outcome !== 'done') {
        toast.warning(`${verb} — the tool ${result.outcome === 'refused' ? 'refused' : 'failed'}: ${result.text}`, { description: title });
      } else toast.success(`${verb}: ${title}`, {
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
    [acting, people, viewer.id, router, visible, select, ownMove],
  );

  /** Decides every selected call on its own (see decideEach); the outcomes list says how each went. */
  const decideSelected = useCallback(
    async (approved: boolean, reason?: string) => {
      const chosen = [...selection.selected.values()];
      if (chosen.length === 0 || bulkBusy) return;
      for (const item of chosen) ownMove(item.id);
      setBulkBusy(true);
      setBulkOutcomes(null);
      const outcomes = await decideEach(chosen, { approved, reason }, people, viewer.id);
      setBulkBusy(false);
      setBulkOutcomes(outcomes);
      selection.clear();
      router.refresh();
    },
    [selection, bulkBusy, people, viewer.id, router, ownMove],
  );

  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const assignSelected = useCallback(
    async (item: InboxItem, assignee: string | null) => {
      ownMove(item.id);
      const refused = await sendAssignment(item, assignee, people, viewer.id);
      if (refused) toast.error(refused.message, { description: refused.next });
      else if (queue === 'unassigned' && assignee === viewer.id) router.push(`/inbox?queue=mine&call=${encodeURIComponent(item.id)}`);
      else {
        toast.success(assignee ? 'Assigned to you.' : 'Released: nobody works on it now.');
        router.refresh();
      }
    },
    [people, viewer.id, queue, router, ownMove],
  );

  useInboxKeys({
    visible,
    selected,
    selectedStale: Boolean(selected && stale[selected.id]),
    viewer,
    sheetOpen: shortcutsOpen,
    queueKeys: status === 'pending',
    ticked: selection.selected.size > 0,
    select,
    openSheet: () => setShortcutsOpen(true),
    openQueue: (index) => router.push(queueHref(QUEUE_TABS[index].key, sort, listQuery)),
    clearTicks: selection.clear,
    toggleTick: selection.toggle,
    assign: (item, assignee) => void assignSelected(item, assignee),
    act: (item, action) => void act(item, action),
    openForm: (id, next) => setMode({ id, mode: next }),
    focusSearch: () => searchRef.current?.focus(),
  });

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
        <InboxToolbar
          status={status}
          queue={queue}
          queueCounts={queueCounts}
          queueCap={queueCap}
          sort={sort}
          listQuery={listQuery}
          kind={kind}
          onKind={setKind}
          counts={counts}
          search={search}
          searchRef={searchRef}
          searchFilters={searchFilters}
          filterOptions={filterOptions}
          filterError={filterError}
        />

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
          <InboxEmpty filtered={filtered} status={status} queue={queue} />
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
                          <UnknownOutcome item={item} />
                        ) : isSelected ? (
                          <div className="border-t border-border bg-muted/20 lg:absolute lg:inset-y-0 lg:right-0 lg:left-[26rem] lg:overflow-y-auto lg:border-t-0 lg:bg-background">
                            <InboxDetail
                              item={item}
                              people={people}
                              viewerId={viewer.id}
                              viewerRole={viewer.role}
                              reviewers={reviewers}
                              onAssigned={(assignee) => {
                                ownMove(item.id);
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
              <InboxPager listQuery={listQuery} nextCursor={nextCursor} olderPage={olderPage} sort={sort} />
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
