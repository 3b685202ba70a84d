'use client';

import { useEffect, useState } from 'react';
import type { CallOutcome } from '@/lib/inbox/outcome';
import { PersonLabel } from '@/components/ui/person';
import { revealBidi } from '@/lib/present/describe';
import { RelativeTime } from '@/components/ui/time';
import { toolResultText } from './tool-result';

/** A decision's kind in words, as the inbox says who decided: "Approved", "Declined", … */
export function decisionLabel(decision: NonNullable<CallOutcome['decision']>): string {
  if (decision.kind === 'decline') return decision.actorRole === 'system' ? 'Declined at its deadline' : 'Declined';
  if (decision.kind === 'vote') return 'Approved (a quorum vote)';
  if (decision.kind === 'resume') return 'Answered';
  if (decision.kind === 'escalation') return 'Escalated to admins';
  return decision.editedArgs ? 'Approved with edits' : 'Approved';
}

/**
 * Loads what became of a call (GET /api/inbox/outcome): its status, the latest decision and who
 * made it, and the tool's result.
 * @returns the outcome, `null` while loading, or `'failed'` when it could not be read
 */
export function useCallOutcome(call: { runId: string; toolCallId: string }): CallOutcome | null | 'failed' {
  const [outcome, setOutcome] = useState<CallOutcome | null | 'failed'>(null);
  useEffect(() => {
    let cancelled = false;
    const query = new URLSearchParams({ runId: call.runId, toolCallId: call.toolCallId });
    fetch(`/api/inbox/outcome?${query}`)
      .then((response) => (response.ok ? (response.json() as Promise<CallOutcome>) : Promise.reject(new Error(String(response.status)))))
      .then(
        (loaded) => !cancelled && setOutcome(loaded),
        () => !cancelled && setOutcome('failed'),
      );
    return () => {
      cancelled = true;
    };
  }, [call.runId, call.toolCallId]);
  return outcome;
}

/**
 * The sentence under "No longer waiting": who decided the call and how ("Declined by Sam, 1 minute
 * ago: “not now”"), who took it, or that its run ended — with the tool's result when it ran.
 */
export function LeftOutcome({ call }: { call: { runId: string; toolCallId: string } }) {
  const outcome = useCallOutcome(call);
  if (outcome === null) return <p className="text-sm text-muted-foreground">Looking up who decided it…</p>;
  if (outcome === 'failed') return null;
  const { decision, people } = outcome;
  const result = outcome.result ? toolResultText(outcome.result) : null;
  return (
    <p className="text-sm" data-testid="inbox-left-outcome" role="status">
      {decision && outcome.status !== 'pending' ? (
        <>
          <strong className="font-medium">{decisionLabel(decision)}</strong> by <PersonLabel id={decision.actorId} people={people} />,{' '}
          <RelativeTime iso={decision.at} />
          {decision.reason ? (
            <>
              : “<bdi>{revealBidi(decision.reason)}</bdi>”
            </>
          ) : null}
          .
        </>
      ) : outcome.status === 'pending' && outcome.assignedTo ? (
        <>
          <strong className="font-medium">Taken by</strong> <PersonLabel id={outcome.assignedTo} people={people} />: it waits in their queue now.
        </>
      ) : (
        <>Nobody decided it: its run ended.</>
      )}
      {result ? (
        <span className="block text-muted-foreground" data-testid="inbox-left-result">
          {result.outcome === 'done' ? 'The tool ran: ' : result.outcome === 'refused' ? 'The tool refused: ' : 'The tool failed: '}
          <bdi>{revealBidi(result.text)}</bdi>
        </span>
      ) : null}
    </p>
  );
}
