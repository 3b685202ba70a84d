'use client';

import { Check, Copy, LoaderCircle, Pencil, Undo2, X } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, type ReactNode } from 'react';
import { toast } from 'sonner';
import { AssignmentControls, type Reviewer } from './assignment';
import { LeftOutcome } from './call-outcome';
import { CallContextPanel, RiskBadge } from './call-context';
import { ApproverBadge } from './inbox-row';
import { whyCannotDecide, type InboxAction, type InboxItem } from './types';
import type { FriendlyError } from '@/components/ui/api-error';
import { ArgsTable } from '@/components/ui/args-table';
import { Button } from '@/components/ui/button';
import { callTitle, personName, policyText, questionText, revealBidi, shortFingerprint, type People } from '@/lib/present/describe';
import { JsonSchemaForm, schemaFromArgs } from '@/components/ui/json-schema-form';
import { PersonLabel } from '@/components/ui/person';
import { Textarea } from '@/components/ui/textarea';
import { Tooltip } from '@/components/ui/tooltip';
import { ErrorNotice } from '@/components/ui/error-notice';
import { useModifierKeyLabel } from '@/components/ui/modifier-key';
import { LocalTime, RelativeTime } from '@/components/ui/time';

export type DetailMode = 'idle' | 'decline' | 'edit';

/**
 * The decision area at the foot of the detail, kept in view while the detail scrolls (sticky to the
 * bottom of its scroller): at 1280×800 the buttons sat 300 px below the fold under a long context.
 */
const ACTION_BAR = 'sticky bottom-0 z-10 -mx-4 border-t border-border bg-background px-4 py-3 lg:-mx-6 lg:px-6';

export interface InboxDetailProps {
  item: InboxItem;
  people: People;
  viewerId: string;
  /** The viewer's role: an escalated call is decided by admins only. */
  viewerRole: string;
  reviewers: Reviewer[];
  onAssigned: (assignee: string | null) => void;
  /** The action being sent for this row, if any. */
  acting: InboxAction['type'] | null;
  error: FriendlyError | null;
  /** Decided elsewhere: actions are gone, the error explains. */
  stale: boolean;
  /** Which form is open: none, the decline reason, or the argument editor. */
  mode: DetailMode;
  onModeChange: (mode: DetailMode) => void;
  reason: string;
  onReasonChange: (reason: string) => void;
  onAction: (action: InboxAction) => void;
  onDismissError: () => void;
  onRefresh: () => void;
}

function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="min-w-0 text-sm break-words">{children}</dd>
    </div>
  );
}

/** Everything about one pending call and the reviewer's actions on it. */
export function InboxDetail(props: InboxDetailProps) {
  const { item, people, viewerId, viewerRole, reviewers, onAssigned, acting, error, stale, mode, onModeChange, reason, onReasonChange, onAction, onDismissError, onRefresh } = props;
  const declining = mode === 'decline';
  // The tool's own input schema (limits, enums, nested fields) when it has one; else one inferred from the args.
  const editSchema = useMemo(() => (item.kind === 'approval' ? (item.inputSchema ?? schemaFromArgs(item.args)) : null), [item.kind, item.args, item.inputSchema]);
  const reasonId = useId();
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const busy = acting !== null;
  const modifierKey = useModifierKeyLabel();
  const cannot = item.kind === 'approval' ? whyCannotDecide(item, { id: viewerId, role: viewerRole }) : null;
  const question = item.kind === 'suspension' ? (questionText(item.suspendPayload) ?? 'The tool needs more information.') : null;

  const editRef = useRef<HTMLDivElement>(null);
  const editing = mode === 'edit';
  useEffect(() => {
    if (declining) reasonRef.current?.focus();
  }, [declining]);
  // As the decline form does by taking focus, the edit form comes into view when it opens (by `e` too).
  useEffect(() => {
    if (editing) editRef.current?.scrollIntoView({ block: 'nearest' });
  }, [editing]);

  // Named by the tool, not by the heading: a question heading ("Which city…?") would also match a field label like "city".
  const notice = error ? (
    <ErrorNotice error={error} testId="inbox-error" onRefresh={stale ? onRefresh : undefined} onDismiss={stale ? undefined : onDismissError} />
  ) : null;
  return (
    <section aria-label={`Details: ${item.toolName}`} className="flex max-w-3xl flex-col gap-4 p-4 lg:p-6">
      {/* A call that is no longer waiting says so first — and who decided it, or took it — and offers nothing to do but refresh. */}
      {stale ? notice : null}
      {stale ? <LeftOutcome call={{ runId: item.runId, toolCallId: item.toolCallId }} /> : null}
      <header className="flex flex-col gap-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-mono text-sm font-semibold">{item.toolName}</span>
          <ApproverBadge item={item} />
          <RiskBadge risk={item.description?.risk} />
        </div>
        <h2 className="text-lg font-semibold text-balance">
          {question ?? callTitle(item)}
        </h2>
        {item.description?.summary ? <p className="text-sm text-muted-foreground">{revealBidi(item.description.summary)}</p> : null}
      </header>

      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 sm:grid-cols-3">
        <Meta label="Requested by">
          <PersonLabel id={item.requester} people={people} />
        </Meta>
        <Meta label="Agent">
          {item.chain.length > 0 ? item.chain.join(' › ') : item.agentId}
        </Meta>
        <Meta label="Waiting since">
          <RelativeTime iso={item.createdAt} /> <span className="text-muted-foreground">(<LocalTime iso={item.createdAt} />)</span>
        </Meta>
        <Meta label="Fingerprint">
          <Tooltip content={<span className="font-mono break-all">{item.fingerprint}</span>}>
            <button
              type="button"
              data-testid="copy-fingerprint"
              onClick={() =>
                void navigator.clipboard?.writeText(item.fingerprint).then(
                  () => toast('Fingerprint copied'),
                  () => toast.error('Could not copy; select it from the tooltip instead.'),
                )
              }
              className="inline-flex items-center gap-1 rounded font-mono text-xs hover:text-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
            >
              {/* The visible text is part of the name (WCAG 2.5.3); the full value is in the tooltip. */}
              <span className="sr-only">Copy fingerprint </span>
              {shortFingerprint(item.fingerprint)}
              <Copy className="size-3 text-muted-foreground" aria-hidden />
            </button>
          </Tooltip>
        </Meta>
        <Meta label={item.kind === 'suspension' ? 'Kind' : 'Why it waits'}>
          {item.kind === 'suspension' ? (
            'A question from the tool'
          ) : (
            <span data-testid="inbox-why">
              <bdi>{item.why ? revealBidi(item.why) : policyText(item.policy)}</bdi>
              {item.policyVersion !== null ? <span className="text-muted-foreground"> · policy version {item.policyVersion}</span> : null}
            </span>
          )}
        </Meta>
        {item.quorum ? (
          <Meta label="Approvals">
            <span data-testid="inbox-quorum">
              {item.approvedBy.length} of {item.quorum}
              {item.approvedBy.length > 0 ? ` (${item.approvedBy.map((id) => personName(id, people)).join(', ')})` : ''}
              {(item.withdrawnVotes ?? []).map((vote) => (
                <span key={vote.userId} data-testid="inbox-vote-withdrawn" className="block text-muted-foreground">
                  {personName(vote.userId, people)}’s vote no longer counts ({vote.reason}); another reviewer must approve.
                </span>
              ))}
            </span>
          </Meta>
        ) : null}
        <Meta label="Run">
          <code className="font-mono text-xs" title={item.runId}>
            {item.runId.slice(0, 8)}
          </code>
        </Meta>
      </dl>

      {item.status === 'pending' && !stale ? <AssignmentControls item={item} people={people} viewerId={viewerId} reviewers={reviewers} onAssigned={onAssigned} /> : null}

      <div>
        <h3 className="mb-1 text-sm font-medium">Arguments</h3>
        <ArgsTable args={item.args} />
      </div>

      <CallContextPanel item={item} people={people} viewerId={viewerId} />

      {stale ? null : notice}

      {stale ? null : cannot === 'voted' && item.quorum ? (
        <div className={ACTION_BAR} data-testid="quorum-waiting" role="status">
          <p className="text-sm">
            <strong className="font-medium">
              {item.approvedBy.length} of {item.quorum} approvals —{' '}
              {item.quorum - item.approvedBy.length === 1 ? 'waiting for another reviewer' : `waiting for ${item.quorum - item.approvedBy.length} more reviewers`}.
            </strong>{' '}
            You approved this; it runs once {item.quorum - item.approvedBy.length === 1 ? 'another reviewer approves' : 'other reviewers approve'} it, and
            one decline ends it. There is nothing more for you to do here.
          </p>
        </div>
      ) : cannot === 'escalated' ? (
        <div className={ACTION_BAR} data-testid="escalated-notice">
          <p className="text-sm">
            <strong className="font-medium">Escalated to admins.</strong> Nobody decided this call by its deadline, so only an admin can approve or
            decline it now.
          </p>
        </div>
      ) : cannot === 'own-request' ? (
        <div className={`flex flex-col gap-2 ${ACTION_BAR}`} data-testid="own-request">
          <p className="text-sm">
            <strong className="font-medium">You asked for this action</strong>, so another reviewer must decide it (four-eyes). It waits in their
            inbox; you can withdraw it while it waits.
          </p>
          <div>
            <Button variant="outline" size="sm" data-testid="inbox-withdraw" disabled={busy} onClick={() => onAction({ type: 'withdraw' })}>
              {acting === 'withdraw' ? <LoaderCircle className="animate-spin" aria-hidden /> : <Undo2 aria-hidden />}
              Withdraw request
            </Button>
          </div>
        </div>
      ) : item.kind === 'suspension' ? (
        <div className="flex flex-col gap-2 rounded-lg border border-border p-4">
          <h3 className="text-sm font-medium">Answer for {personName(item.requester, people)}</h3>
          <JsonSchemaForm
            schema={item.resumeSchema}
            idPrefix={`inbox-${item.id.replace(/[^A-Za-z0-9_-]/g, '')}`}
            submitTestId="inbox-answer-submit"
            submitLabel="Send answer"
            busy={busy}
            onSubmit={(resumeData) => onAction({ type: 'answer', resumeData })}
          />
        </div>
      ) : editing && editSchema ? (
        <div ref={editRef} className="flex flex-col gap-2 rounded-lg border border-border p-4">
          <h3 className="text-sm font-medium">Approve with edits</h3>
          <p className="text-xs text-muted-foreground">
            The tool runs with these values; the audit keeps both versions. Values that need more than your approval (more reviewers, another
            rule) are refused, and nothing runs.
          </p>
          <JsonSchemaForm
            schema={editSchema}
            idPrefix={`edit-${item.id.replace(/[^A-Za-z0-9_-]/g, '')}`}
            initialData={item.args}
            submitTestId="inbox-edit-submit"
            submitLabel="Approve edited call"
            busy={busy}
            onSubmit={(edited) => onAction({ type: 'approve', args: item.inputSchema ? edited : { ...(item.args as object), ...(edited as object) } })}
            actions={
              <Button variant="ghost" size="sm" disabled={busy} onClick={() => onModeChange('idle')}>
                Cancel
              </Button>
            }
          />
        </div>
      ) : declining ? (
        <div className={`flex flex-col gap-2 ${ACTION_BAR}`} data-testid="inbox-decline-form">
          <label htmlFor={reasonId} className="text-sm font-medium">
            Reason for declining <span className="font-normal text-muted-foreground">(the agent and the requester see it)</span>
          </label>
          <Textarea
            id={reasonId}
            ref={reasonRef}
            data-testid="inbox-decline-reason"
            value={reason}
            onChange={(event) => onReasonChange(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') onModeChange('idle');
              // Ctrl+Enter (⌘+Enter on a Mac) declines, as the button does.
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !busy) {
                event.preventDefault();
                onAction({ type: 'decline', reason: reason.trim() || undefined });
              }
            }}
            aria-describedby={`${reasonId}-keys`}
            maxLength={2000}
            rows={3}
            placeholder="e.g. Refunds over $100 need a manager’s sign-off"
            disabled={busy}
          />
          <div className="flex flex-wrap gap-2">
            <Button
              variant="destructive"
              size="sm"
              data-testid="inbox-decline-confirm"
              disabled={busy}
              onClick={() => onAction({ type: 'decline', reason: reason.trim() || undefined })}
            >
              {acting === 'decline' ? <LoaderCircle className="animate-spin" aria-hidden /> : <X aria-hidden />}
              Decline
            </Button>
            <Button variant="ghost" size="sm" disabled={busy} onClick={() => onModeChange('idle')}>
              Cancel
            </Button>
            <span id={`${reasonId}-keys`} className="self-center text-xs text-muted-foreground">
              {modifierKey}+Enter declines · Esc cancels
            </span>
          </div>
        </div>
      ) : (
        <div className={`flex flex-wrap items-center gap-2 ${ACTION_BAR}`} data-testid="inbox-actions">
          <Button variant="primary" data-testid="inbox-approve" disabled={busy} onClick={() => onAction({ type: 'approve' })}>
            {acting === 'approve' ? <LoaderCircle className="animate-spin" aria-hidden /> : <Check aria-hidden />}
            Approve
          </Button>
          <Button variant="outline" data-testid="inbox-decline" disabled={busy} onClick={() => onModeChange('decline')}>
            <X aria-hidden />
            Decline…
          </Button>
          {item.requester === viewerId ? (
            <Button variant="ghost" data-testid="inbox-withdraw" disabled={busy} onClick={() => onAction({ type: 'withdraw' })}>
              <Undo2 aria-hidden />
              Withdraw
            </Button>
          ) : null}
          {editSchema ? (
            <Button variant="ghost" data-testid="inbox-edit" disabled={busy} onClick={() => onModeChange('edit')}>
              <Pencil aria-hidden />
              Edit…
            </Button>
          ) : null}
          <span className="hidden text-xs text-muted-foreground sm:inline">
            Keys: <kbd className="font-mono">a</kbd> approve, <kbd className="font-mono">d</kbd> decline, <kbd className="font-mono">e</kbd> edit, <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> move, <kbd className="font-mono">?</kbd> all
          </span>
        </div>
      )}
    </section>
  );
}
