'use client';

import { Bot, ExternalLink, Send, StickyNote, UserRound } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useId, useState } from 'react';
import { toast } from 'sonner';
import type { InboxItem } from './types';
import { Badge } from '@/components/ui/badge';
import { personName, revealBidi, type People } from '@/lib/present/describe';
import type { FriendlyError } from '@/components/ui/api-error';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { ErrorNotice } from '@/components/ui/error-notice';
import { sendJson } from '@/components/ui/send-json';
import { Skeleton } from '@/components/ui/skeleton';
import { Textarea } from '@/components/ui/textarea';
import { RelativeTime } from '@/components/ui/time';
import type { CallContext } from '@/lib/inbox/context';
import type { CallActivityEntry } from '@/lib/inbox/notes';

type State = { status: 'loading' } | { status: 'ready'; context: CallContext } | { status: 'failed' };

/** The risk a tool gave its call, as a badge (nothing when it gave none). */
export function RiskBadge({ risk }: { risk?: 'low' | 'medium' | 'high' }) {
  if (!risk) return null;
  return (
    <Badge tone={risk === 'high' ? 'danger' : risk === 'medium' ? 'accent' : 'neutral'} data-testid="risk-badge">
      {risk === 'high' ? 'High risk' : risk === 'medium' ? 'Medium risk' : 'Low risk'}
    </Badge>
  );
}

/**
 * What a reviewer needs beside a call: the business facts its tool looks up (e.g. order total and
 * already refunded), what the requester asked (their last messages) and what the agent said before
 * the call, and a link to the whole chat, read-only. Loaded when the call is opened.
 */
export function CallContextPanel({ item, people, viewerId }: { item: InboxItem; people: People; viewerId: string }) {
  const [state, setState] = useState<State>({ status: 'loading' });
  // Bumped after a note or a question is sent, to load the activity again.
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let cancelled = false;
    setState((current) => (current.status === 'ready' && version > 0 ? current : { status: 'loading' }));
    fetch(`/api/inbox/calls/${encodeURIComponent(item.id)}/context`)
      .then(async (response) => {
        if (!response.ok) throw new Error(String(response.status));
        const context = (await response.json()) as CallContext;
        if (!cancelled) setState({ status: 'ready', context });
      })
      .catch(() => {
        if (!cancelled) setState({ status: 'failed' });
      });
    return () => {
      cancelled = true;
    };
  }, [item.id, version]);

  if (state.status === 'loading') {
    return (
      <div role="status" className="flex flex-col gap-2" aria-busy="true" aria-label="Loading the context">
        <Skeleton className="h-4 w-40" />
        <Skeleton className="h-12 w-full" />
      </div>
    );
  }
  if (state.status === 'failed') {
    return <p className="text-sm text-muted-foreground">The conversation could not be loaded. Reload the page to try again.</p>;
  }
  const { context } = state;
  return (
    <div className="flex flex-col gap-4" data-testid="call-context">
      {context.fields.length > 0 || context.fieldsError ? (
        <section aria-labelledby={`facts-${item.id}`} className="flex flex-col gap-1">
          <h3 id={`facts-${item.id}`} className="text-sm font-medium">
            Facts from {item.toolName}
          </h3>
          {context.fieldsError ? <p className="text-sm text-muted-foreground">{context.fieldsError}</p> : null}
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md border border-border p-3 text-sm" data-testid="context-fields">
            {context.fields.map((field) => (
              <div key={field.label} className="contents">
                <dt className="text-muted-foreground">{revealBidi(field.label)}</dt>
                <dd className="min-w-0 font-medium break-words">
                  <bdi>{revealBidi(field.value)}</bdi>
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ) : null}

      <section aria-labelledby={`convo-${item.id}`} className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h3 id={`convo-${item.id}`} className="text-sm font-medium">
            What {personName(item.requester, people, viewerId)} asked
          </h3>
          {context.threadDeleted ? (
            <span className="text-xs text-muted-foreground">The requester deleted this chat.</span>
          ) : (
            <Link
              href={item.requester === viewerId ? `/chat/${encodeURIComponent(context.threadId)}` : `/inbox/threads/${encodeURIComponent(context.threadId)}`}
              data-testid="context-thread-link"
              className="inline-flex items-center gap-1 rounded text-sm text-primary hover:underline focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
            >
              Open the chat{item.requester === viewerId ? '' : ' (read-only)'} <ExternalLink className="size-3.5" aria-hidden />
            </Link>
          )}
        </div>
        {context.messages.length === 0 ? (
          <p className="text-sm text-muted-foreground">No messages to show.</p>
        ) : (
          <ol className="flex flex-col gap-2" data-testid="context-messages">
            {context.messages.map((message, index) => (
              <li key={index} data-role={message.role} data-after={message.after ? 'true' : undefined} className="flex gap-2 text-sm">
                {message.role === 'user' ? (
                  <UserRound className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-label="Requester" />
                ) : (
                  <Bot className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-label="Agent" />
                )}
                <p className={message.role === 'user' ? 'min-w-0 font-medium break-words whitespace-pre-wrap' : 'min-w-0 break-words whitespace-pre-wrap text-muted-foreground'}>
                  {message.after ? <span className="mr-1 text-xs font-normal text-muted-foreground">Since then:</span> : null}
                  <bdi>{revealBidi(message.text)}</bdi>
                </p>
              </li>
            ))}
          </ol>
        )}
      </section>

      <ActivityPanel
        item={item}
        people={{ ...context.people, ...people }}
        viewerId={viewerId}
        activity={context.activity}
        onSent={() => setVersion((n) => n + 1)}
      />
    </div>
  );
}

function activityLine(entry: CallActivityEntry, people: People, viewerId: string): string {
  const who = personName(entry.actorId, people, viewerId);
  const Who = who === 'you' ? 'You' : who;
  switch (entry.kind) {
    case 'assigned':
      return entry.assignee === entry.actorId ? `${Who} took it` : `${Who} assigned it to ${personName(entry.assignee, people, viewerId)}`;
    case 'released':
      // An admin's deactivation or role change releases the person's calls: it names them and why.
      return entry.assignee && entry.assignee !== entry.actorId
        ? `${Who} released it from ${personName(entry.assignee, people, viewerId)}${entry.body ? `: ${entry.body}` : ''}`
        : `${Who} released it`;
    case 'comment':
      return `${Who} noted`;
    case 'question':
      return `${Who} asked the requester`;
  }
}

/**
 * The call's activity (assignments, notes, questions) and the two ways to add to it without
 * deciding: a note for reviewers and the audit, or a question sent into the requester's chat.
 */
function ActivityPanel({
  item,
  people,
  viewerId,
  activity,
  onSent,
}: {
  item: InboxItem;
  people: People;
  viewerId: string;
  activity: CallActivityEntry[];
  onSent: () => void;
}) {
  const [kind, setKind] = useState<'comment' | 'question'>('comment');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FriendlyError | null>(null);
  const bodyId = useId();
  const askable = item.status === 'pending' && item.requester !== viewerId;
  const send = async () => {
    setBusy(true);
    setError(null);
    const outcome = await sendJson(`/api/inbox/calls/${encodeURIComponent(item.id)}/notes`, { method: 'POST', body: { kind, body } });
    setBusy(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    toast.success(kind === 'question' ? `Asked ${personName(item.requester, people, viewerId)} in their chat.` : 'Note added.');
    setBody('');
    onSent();
  };
  return (
    <section aria-labelledby={`activity-${item.id}`} className="flex flex-col gap-2" data-testid="call-activity">
      <h3 id={`activity-${item.id}`} className="text-sm font-medium">
        Notes and activity
      </h3>
      {activity.length > 0 ? (
        <ol className="flex flex-col gap-1.5 text-sm">
          {activity.map((entry) => (
            <li key={entry.id} data-testid="activity-entry" data-kind={entry.kind} className="flex flex-col">
              <span className="text-xs text-muted-foreground">
                {activityLine(entry, people, viewerId)} · <RelativeTime iso={entry.at} />
              </span>
              {entry.body && entry.kind !== 'released' ? (
                <span className="break-words whitespace-pre-wrap">
                  <bdi>{revealBidi(entry.body)}</bdi>
                </span>
              ) : null}
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-sm text-muted-foreground">No notes yet.</p>
      )}
      {item.status === 'pending' ? (
        <form
          className="flex flex-col gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <div role="radiogroup" aria-label="Send as" className="flex w-fit rounded-md border border-border p-0.5 text-sm">
            {(
              [
                ['comment', 'Note for reviewers'],
                ...(askable ? ([['question', `Ask ${item.requester === viewerId ? 'the requester' : (people[item.requester]?.name ?? 'the requester')}`]] as const) : []),
              ] as const
            ).map(([key, label]) => (
              <button
                key={key}
                type="button"
                role="radio"
                aria-checked={kind === key}
                data-testid={`note-kind-${key}`}
                onClick={() => setKind(key)}
                className={cn(
                  'rounded px-2.5 py-1 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none',
                  kind === key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
                )}
              >
                <bdi>{revealBidi(label)}</bdi>
              </button>
            ))}
          </div>
          <label htmlFor={bodyId} className="sr-only">
            {kind === 'question' ? 'Question for the requester (shown in their chat)' : 'Note (kept with the call and in the audit)'}
          </label>
          <Textarea
            id={bodyId}
            data-testid="note-body"
            value={body}
            onChange={(event) => setBody(event.target.value)}
            maxLength={2000}
            rows={2}
            disabled={busy}
            placeholder={kind === 'question' ? 'e.g. Is this the order with the broken blender?' : 'e.g. Checked with finance — fine to refund.'}
          />
          <div className="flex items-center gap-2">
            <Button type="submit" variant="outline" size="sm" data-testid="note-send" disabled={busy || !body.trim()}>
              {kind === 'question' ? <Send aria-hidden /> : <StickyNote aria-hidden />}
              {kind === 'question' ? 'Send question' : 'Add note'}
            </Button>
            <span className="text-xs text-muted-foreground">{kind === 'question' ? 'Shown in their chat; the call keeps waiting.' : 'Reviewers and the audit see it.'}</span>
          </div>
          {error ? <ErrorNotice error={error} testId="note-error" onDismiss={() => setError(null)} /> : null}
        </form>
      ) : null}
    </section>
  );
}
