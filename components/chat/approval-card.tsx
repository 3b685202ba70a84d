'use client';

import { Check, Hourglass, LoaderCircle, ShieldCheck, Undo2, X } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { decidersText, quorumProgress } from './approvers';
import { resultLine, type ToolPartView } from './tool-status';
import type { CardProps } from './types';
import { WITHDRAWN_REASON } from '@/lib/agent/withdraw';
import type { ApprovalCardData } from '@/lib/ui-stream/map';
import { ArgsDiff } from '@/components/ui/args-diff';
import { ArgsTable } from '@/components/ui/args-table';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { callTitle, formatValue, revealBidi, type People } from '@/lib/present/describe';
import { Textarea } from '@/components/ui/textarea';
import { LocalTime } from '@/components/ui/time';
import { useModifierKeyLabel } from '@/components/ui/modifier-key';
import { readableErrorText } from '@/components/ui/readable';

export type ApprovalCardProps = CardProps<ApprovalCardData>;

/**
 * A call that waits for approval: what it will do, its arguments, who may decide, and Approve /
 * Decline (with a reason). Once decided, the buttons give way to the outcome ("Approved by you · 14:02").
 */
export function ApprovalCard({ data, tool, viewerId, people, acting, disabled, onAction }: ApprovalCardProps) {
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState<'approve' | 'decline' | null>(null);
  const reasonId = useId();
  const titleId = useId();
  const cardRef = useRef<HTMLElement>(null);
  const declineRef = useRef<HTMLButtonElement>(null);

  const decided = data.resumed === true;
  const approved = decided && data.decision?.approved !== false;
  const state = !decided ? 'pending' : approved ? 'approved' : 'declined';
  // Escalated at its deadline: only admins may decide it now (the server refuses others: ESCALATED_TO_ADMINS).
  const escalated = Boolean(data.deadline?.escalatedAt);
  const mayDecide = data.approvers === 'requester' && !escalated;
  // A quorum call's count so far, in the words the inbox's read-only transcript uses too.
  const progress = quorumProgress(data, people, viewerId);
  const chain = data.chain && data.chain.length > 2 ? data.chain.join(' › ') : null;
  const busy = acting || disabled;
  const modifierKey = useModifierKeyLabel();

  const closeDeclineForm = () => {
    setDeclining(false);
    // The form's buttons go away: focus returns to the Decline button that opened it.
    requestAnimationFrame(() => declineRef.current?.focus());
  };

  const decide = (ok: boolean) => {
    setSent(ok ? 'approve' : 'decline');
    // The buttons are disabled, then replaced by the outcome: keep focus on the card, not on <body>.
    cardRef.current?.focus();
    const trimmed = reason.trim();
    onAction({
      type: 'decision',
      runId: data.runId,
      toolCallId: data.toolCallId,
      approved: ok,
      fingerprint: data.fingerprint,
      ...(ok || !trimmed ? {} : { reason: trimmed }),
    });
  };

  return (
    <section
      ref={cardRef}
      tabIndex={-1}
      aria-labelledby={titleId}
      data-testid="approval-card"
      data-card-id={data.toolCallId}
      data-awaiting-you={state === 'pending' && mayDecide ? 'true' : undefined}
      data-tool-name={data.toolName}
      data-state={state}
      data-args={JSON.stringify(data.args)}
      className={cn(
        'scroll-my-4 rounded-lg border bg-card p-4 shadow-xs focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none',
        state === 'pending' ? 'border-primary/40 ring-1 ring-primary/10' : 'border-border',
      )}
    >
      <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <ShieldCheck className="size-4 text-primary" aria-hidden />
        <h3 id={titleId} className="text-sm font-semibold">
          {state === 'pending' ? 'Approval needed' : 'Approval'}
        </h3>
        <Badge className="font-mono">{data.toolName}</Badge>
        {chain ? <span className="text-xs text-muted-foreground">via {chain}</span> : null}
      </header>

      <p className="mt-2 text-sm font-medium">{callTitle(data)}</p>
      <ArgsTable args={data.args} className="mt-2" />
      {data.why ? (
        <p className="mt-2 text-sm text-muted-foreground" data-testid="approval-why">
          <span className="font-medium text-foreground">{decided ? 'Why it asked:' : 'Why it waits:'}</span> <bdi>{revealBidi(data.why)}</bdi>
        </p>
      ) : null}
      {!decided && data.deadline ? <Deadline deadline={data.deadline} /> : null}

      {decided ? (
        <Outcome data={data} viewerId={viewerId} people={people} tool={tool} />
      ) : !mayDecide ? (
        <div className="mt-3 flex flex-wrap items-center gap-2 rounded-md bg-muted px-3 py-2 text-sm" role="status">
          <Hourglass className="size-4 shrink-0 text-muted-foreground" aria-hidden />
          <span className="flex-1">
            {escalated ? (
              <>
                <strong className="font-medium">Waiting for an admin.</strong> Nobody decided in time, so only an admin can approve this action now.
              </>
            ) : progress ? (
              <>
                <strong className="font-medium" data-testid="approval-quorum">
                  {progress.count}
                </strong>{' '}
                {progress.detail}
              </>
            ) : (
              <>
                <strong className="font-medium">Waiting for a reviewer.</strong> Only a reviewer can approve this action.
              </>
            )}
          </span>
          <Button
            variant="outline"
            size="sm"
            data-testid="withdraw-button"
            disabled={busy}
            onClick={() => {
              setSent('decline');
              cardRef.current?.focus();
              onAction({ type: 'decision', runId: data.runId, toolCallId: data.toolCallId, approved: false, fingerprint: data.fingerprint, withdraw: true });
            }}
          >
            {acting && sent === 'decline' ? <LoaderCircle className="animate-spin" aria-hidden /> : <Undo2 aria-hidden />}
            Withdraw
          </Button>
        </div>
      ) : declining ? (
        <div className="mt-3 flex flex-col gap-2">
          <label htmlFor={reasonId} className="text-sm font-medium">
            Reason for declining <span className="font-normal text-muted-foreground">(optional, the agent sees it)</span>
          </label>
          <Textarea
            id={reasonId}
            data-testid="decline-reason"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                closeDeclineForm();
              }
              // Ctrl+Enter (⌘+Enter on a Mac) declines, as the button does.
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !busy) {
                event.preventDefault();
                decide(false);
              }
            }}
            aria-describedby={`${reasonId}-keys`}
            placeholder="e.g. Not this record — it is still in use"
            maxLength={2000}
            rows={2}
            autoFocus
            disabled={busy}
          />
          <div className="flex flex-wrap gap-2">
            <Button variant="destructive" size="sm" data-testid="decline-confirm" disabled={busy} onClick={() => decide(false)}>
              {acting && sent === 'decline' ? <LoaderCircle className="animate-spin" aria-hidden /> : <X aria-hidden />}
              Decline
            </Button>
            <Button variant="ghost" size="sm" disabled={busy} onClick={closeDeclineForm}>
              Cancel
            </Button>
            <span id={`${reasonId}-keys`} className="self-center text-xs text-muted-foreground">
              {modifierKey}+Enter declines · Esc cancels
            </span>
          </div>
        </div>
      ) : (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Button variant="primary" size="sm" data-testid="approve-button" disabled={busy} onClick={() => decide(true)}>
            {acting && sent === 'approve' ? <LoaderCircle className="animate-spin" aria-hidden /> : <Check aria-hidden />}
            Approve
          </Button>
          <Button ref={declineRef} variant="outline" size="sm" data-testid="decline-button" disabled={busy} onClick={() => setDeclining(true)}>
            <X aria-hidden />
            Decline
          </Button>
          <span className="text-xs text-muted-foreground">You can approve this yourself.</span>
        </div>
      )}
    </section>
  );
}

/** A waiting call's deadline: when it is declined or escalated, or that it was escalated to admins. */
function Deadline({ deadline }: { deadline: NonNullable<ApprovalCardData['deadline']> }) {
  return (
    <p data-testid="approval-deadline" data-escalated={deadline.escalatedAt ? 'true' : undefined} className="mt-2 text-xs text-muted-foreground">
      {deadline.escalatedAt ? (
        <>
          <strong className="font-medium text-foreground">Escalated to admins</strong> (no reviewer decided in time). Declined automatically at{' '}
          <LocalTime iso={deadline.at} /> unless someone decides.
        </>
      ) : (
        <>
          {deadline.action === 'escalate' ? 'Escalated to admins' : 'Declined automatically'} at <LocalTime iso={deadline.at} /> unless someone decides.
        </>
      )}
    </p>
  );
}

function Outcome({ data, viewerId, people, tool }: { data: ApprovalCardData; viewerId: string; people: People; tool?: ToolPartView }) {
  const decision = data.decision;
  const approved = decision?.approved !== false;
  // A quorum call names every reviewer who approved it: the earlier votes, then the approval that filled it.
  const who = decidersText(data, people, viewerId);
  const reason = decision?.reason?.trim();
  const withdrawn = !approved && reason === WITHDRAWN_REASON;
  return (
    <div className="mt-3 flex flex-col gap-1 border-t border-border pt-3">
      <p data-testid="approval-outcome" className={cn('flex flex-wrap items-center gap-x-1.5 text-sm font-medium', approved ? 'text-success' : 'text-destructive')}>
        {approved ? <Check className="size-4" aria-hidden /> : <X className="size-4" aria-hidden />}
        <span>
          {approved ? (decision?.editedFrom !== undefined ? 'Approved with edits' : 'Approved') : withdrawn ? 'Withdrawn' : 'Declined'} by {who}
          {!approved && reason && !withdrawn ? (
            <>
              : <bdi>{revealBidi(reason)}</bdi>
            </>
          ) : (
            ''
          )}
          {decision?.at ? (
            <span className="font-normal text-muted-foreground">
              {' · '}
              <LocalTime iso={decision.at} />
            </span>
          ) : null}
        </span>
      </p>
      {decision?.editedFrom !== undefined ? (
        <div className="text-sm" data-testid="approval-edited-from">
          <p className="text-muted-foreground">What the reviewer changed:</p>
          <ArgsDiff before={decision.editedFrom} after={data.args} className="mt-1" />
        </div>
      ) : null}
      {tool?.state === 'output-available' ? (
        <p className="text-sm text-muted-foreground">Result: {resultLine(tool.output)}</p>
      ) : tool?.state === 'output-error' ? (
        <p className="text-sm whitespace-pre-line text-destructive">The tool failed: {readableErrorText(tool.errorText)}</p>
      ) : null}
    </div>
  );
}
