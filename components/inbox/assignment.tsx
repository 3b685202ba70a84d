'use client';

import { LoaderCircle, UserCheck, UserMinus } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import type { InboxItem } from './types';
import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import { Button } from '@/components/ui/button';
import { personName, revealBidi, type People } from '@/lib/present/describe';
import { ErrorNotice } from '@/components/ui/error-notice';

/** An active reviewer or admin a call can be assigned to. */
export interface Reviewer {
  id: string;
  name: string;
  email: string;
  role: string;
}

/**
 * Sends an assignment change for one call (`assignee` null releases it), with the assignee the
 * sender saw, so a change by someone else in between is refused and explained.
 * @returns null when it went through, else the refusal as a sentence
 */
export async function sendAssignment(item: InboxItem, assignee: string | null, people: People, viewerId: string): Promise<FriendlyError | null> {
  try {
    const response = await fetch(`/api/inbox/calls/${encodeURIComponent(item.id)}/assignment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assignee, expected: item.assignedTo }),
    });
    if (response.ok) return null;
    return friendlyError(parseApiError(await response.text().catch(() => '')), people, viewerId);
  } catch {
    return friendlyError(null, people, viewerId);
  }
}

/**
 * Who works on a call, and the controls to claim it ("Assign to me"), release it, or assign it to
 * a named reviewer. The change is saved at once; every inbox updates live.
 */
export function AssignmentControls({
  item,
  people,
  viewerId,
  reviewers,
  onAssigned,
}: {
  item: InboxItem;
  people: People;
  viewerId: string;
  reviewers: Reviewer[];
  /** After a change went through (the view refreshes, or follows a claimed call to "For me"). */
  onAssigned: (assignee: string | null) => void;
}) {
  const router = useRouter();
  const selectId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FriendlyError | null>(null);
  // Only someone who could decide the call is offered: not the person who asked for a reviewer-only
  // call, and only admins for a call a deadline escalated to admins (the server refuses the rest).
  const canTake = (person: { id: string; role?: string }) =>
    !(item.approvers === 'reviewer' && person.id === item.requester) && !(item.assignedToRole && person.role !== undefined && person.role !== item.assignedToRole);
  const eligible = reviewers.filter(canTake);
  const canClaim = canTake({ id: viewerId, role: reviewers.find((reviewer) => reviewer.id === viewerId)?.role });

  const change = async (assignee: string | null) => {
    setBusy(true);
    setError(null);
    const refused = await sendAssignment(item, assignee, people, viewerId);
    setBusy(false);
    if (refused) {
      setError(refused);
      router.refresh();
      return;
    }
    toast.success(assignee === null ? 'Released: nobody works on it now.' : assignee === viewerId ? 'Assigned to you.' : `Assigned to ${personName(assignee, people, viewerId)}.`);
    onAssigned(assignee);
  };

  return (
    <div className="flex flex-col gap-2" data-testid="assignment">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="text-muted-foreground">Assigned to</span>
        <span className="font-medium" data-testid="assignee">
          {item.assignedTo ? personName(item.assignedTo, people, viewerId) : 'nobody'}
        </span>
        {busy ? <LoaderCircle className="size-4 animate-spin text-muted-foreground" aria-label="Saving" /> : null}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {item.assignedTo !== viewerId && canClaim ? (
          <Button variant="outline" size="sm" data-testid="assign-me" disabled={busy} onClick={() => void change(viewerId)}>
            <UserCheck aria-hidden />
            Assign to me
          </Button>
        ) : null}
        {item.assignedTo ? (
          <Button variant="ghost" size="sm" data-testid="assign-release" disabled={busy} onClick={() => void change(null)}>
            <UserMinus aria-hidden />
            Release
          </Button>
        ) : null}
        <label htmlFor={selectId} className="sr-only">
          Assign to a reviewer
        </label>
        <select
          id={selectId}
          data-testid="assign-select"
          disabled={busy}
          value=""
          onChange={(event) => {
            if (event.target.value) void change(event.target.value);
          }}
          className="h-8 rounded-md border border-border bg-background px-2 text-sm focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
        >
          <option value="">Assign to…</option>
          {eligible
            .filter((reviewer) => reviewer.id !== item.assignedTo)
            .map((reviewer) => (
              <option key={reviewer.id} value={reviewer.id}>
                {reviewer.id === viewerId ? `${revealBidi(reviewer.name)} (you)` : `${revealBidi(reviewer.name)} (${revealBidi(reviewer.email)})`}
              </option>
            ))}
        </select>
      </div>
      {error ? <ErrorNotice error={error} testId="assignment-error" onDismiss={() => setError(null)} /> : null}
    </div>
  );
}
