'use client';

import { Bot, ExternalLink, UserRound } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import type { InboxItem } from './types';
import { Badge } from '@/components/ui/badge';
import { personName, revealBidi, type People } from '@/components/ui/describe';
import { Skeleton } from '@/components/ui/skeleton';
import type { CallContext } from '@/lib/inbox/context';

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
  useEffect(() => {
    let cancelled = false;
    setState({ status: 'loading' });
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
  }, [item.id]);

  if (state.status === 'loading') {
    return (
      <div className="flex flex-col gap-2" aria-busy="true" aria-label="Loading the context">
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
              <li key={index} data-role={message.role} className="flex gap-2 text-sm">
                {message.role === 'user' ? (
                  <UserRound className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-label="Requester" />
                ) : (
                  <Bot className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-label="Agent" />
                )}
                <p className={message.role === 'user' ? 'min-w-0 font-medium break-words whitespace-pre-wrap' : 'min-w-0 break-words whitespace-pre-wrap text-muted-foreground'}>
                  <bdi>{revealBidi(message.text)}</bdi>
                </p>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
