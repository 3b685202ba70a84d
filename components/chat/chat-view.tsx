'use client';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { Hourglass, ShieldCheck } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ChatErrorBanner } from './chat-error';
import { Composer } from './composer';
import { MessageView } from './message';
import { isCardPart, pendingCards, type CardAction, type CardPart, type ChatMessage } from './types';
import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import { describeToolCall, type People } from '@/components/ui/describe';

export interface ChatViewProps {
  threadId: string;
  /** The thread as stored on the server (empty for a new chat). */
  initialMessages: ChatMessage[];
  viewerId: string;
  people: People;
}

const SUGGESTIONS = ['delete record rec-42', "what's the weather?", 'refund order ord-1042 for 250', 'look up customer cus-1'];

/** Every pending card id in the messages. */
function pendingIds(messages: ChatMessage[]): Set<string> {
  return new Set(messages.flatMap((message) => pendingCards(message).map((card) => card.data.toolCallId)));
}

/**
 * Whether the server's copy of the thread is newer than ours: it has more messages, or it shows a
 * card as decided that we still show as pending (someone decided elsewhere, e.g. in the inbox).
 */
function serverIsNewer(client: ChatMessage[], server: ChatMessage[]): boolean {
  if (server.length > client.length) return true;
  const waiting = pendingIds(client);
  if (waiting.size === 0) return false;
  return server.some((message) =>
    message.parts.some((part) => isCardPart(part) && part.data.resumed === true && waiting.has(part.data.toolCallId)),
  );
}

function toFriendly(error: Error, people: People, viewerId: string): FriendlyError {
  const parsed = parseApiError(error.message);
  if (parsed) return friendlyError(parsed, people, viewerId);
  const text = error.message.trim();
  // An error chunk inside the stream carries a sentence from the server; a failed fetch does not.
  if (text && !(error instanceof TypeError) && !text.startsWith('<') && text.length < 400) {
    return { code: 'STREAM_ERROR', message: text, next: 'Try again, or start a new chat.', issues: [] };
  }
  return friendlyError(null, people, viewerId);
}

/** The conversation: messages streaming in, approval and question cards, and the composer. */
export function ChatView({ threadId, initialMessages, viewerId, people }: ChatViewProps) {
  const router = useRouter();
  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: '/api/chat',
        // The server keeps the history; it only needs the newest message (and any decision).
        prepareSendMessagesRequest: ({ id, messages, body }) => ({ body: { id, messages: messages.slice(-1), ...body } }),
      }),
    [],
  );
  const { messages, sendMessage, status, stop, error, clearError, setMessages } = useChat<ChatMessage>({
    id: threadId,
    messages: initialMessages,
    transport,
    // New threads and titles show up in the sidebar.
    onFinish: () => router.refresh(),
  });
  const [draft, setDraft] = useState('');
  const [actingOn, setActingOn] = useState<string | null>(null);
  const busy = status === 'submitted' || status === 'streaming';

  // Adopt the server's copy when it is newer (a reviewer decided while we waited).
  useEffect(() => {
    if (busy) return;
    setMessages((current) => (serverIsNewer(current, initialMessages) ? initialMessages : current));
  }, [initialMessages, busy, setMessages]);

  const pending = useMemo(() => messages.flatMap((message) => pendingCards(message)), [messages]);
  const reviewerWait = pending.find((card) => card.type === 'data-tool-call-approval' && card.data.approvers === 'reviewer');

  // While someone else has to decide, look for their decision every few seconds.
  useEffect(() => {
    if (!reviewerWait || busy) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, 4_000);
    return () => clearInterval(timer);
  }, [reviewerWait, busy, router]);

  // Coming back to the tab may reveal decisions made meanwhile.
  const hasPending = pending.length > 0;
  useEffect(() => {
    if (!hasPending) return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') router.refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [hasPending, router]);

  const friendly = error ? toFriendly(error, people, viewerId) : null;
  const conflict = friendly?.code === 'ALREADY_DECIDED';
  useEffect(() => {
    // Someone else decided first: fetch the outcome so the card shows it.
    if (conflict) router.refresh();
  }, [conflict, router]);

  const send = useCallback(
    (text: string) => {
      const trimmed = text.trim();
      if (!trimmed || busy) return;
      clearError();
      stickToBottom.current = true;
      setDraft('');
      void sendMessage({ text: trimmed });
    },
    [busy, clearError, sendMessage],
  );

  const onAction = useCallback(
    async (action: CardAction) => {
      clearError();
      setActingOn(action.toolCallId);
      try {
        if (action.type === 'decision') {
          const { type: _type, ...decision } = action;
          await sendMessage(undefined, { body: { decision } });
        } else {
          const { type: _type, ...resume } = action;
          await sendMessage(undefined, { body: { resume } });
        }
      } finally {
        setActingOn(null);
      }
    },
    [clearError, sendMessage],
  );

  // Follow the conversation while the reader is at the bottom.
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  useEffect(() => {
    const el = scroller.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, friendly?.message]);

  const lastId = messages.at(-1)?.id;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div
        ref={scroller}
        onScroll={(event) => {
          const el = event.currentTarget;
          stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 120;
        }}
        className="min-h-0 flex-1 overflow-y-auto"
      >
        <div
          role="log"
          aria-live="polite"
          aria-label="Messages"
          aria-busy={busy}
          className="mx-auto flex w-full max-w-3xl flex-col gap-6 px-4 py-6"
        >
          {messages.length === 0 ? (
            <EmptyChat onPick={send} />
          ) : (
            messages.map((message) => (
              <MessageView
                key={message.id}
                message={message}
                viewerId={viewerId}
                people={people}
                streaming={busy && message.id === lastId}
                actingOn={actingOn}
                busy={busy}
                onAction={onAction}
              />
            ))
          )}
          {status === 'submitted' && messages.at(-1)?.role === 'user' ? (
            <p className="animate-pulse pl-10 text-sm text-muted-foreground">Thinking…</p>
          ) : null}
        </div>
      </div>

      <div className="mx-auto flex w-full max-w-3xl flex-col gap-2 px-4 pt-2 pb-4">
        {reviewerWait ? <ReviewerWait card={reviewerWait} /> : null}
        {friendly ? <ChatErrorBanner error={friendly} onDismiss={clearError} onRefresh={() => router.refresh()} /> : null}
        <Composer value={draft} onChange={setDraft} onSend={() => send(draft)} onStop={() => void stop()} busy={busy} />
        <p className="text-center text-xs text-muted-foreground">Sensitive actions wait for approval before they run.</p>
      </div>
    </div>
  );
}

function ReviewerWait({ card }: { card: CardPart }) {
  return (
    <p
      role="status"
      data-testid="chat-waiting"
      className="flex items-start gap-2 rounded-lg border border-border bg-muted px-3 py-2 text-sm"
    >
      <Hourglass className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
      <span>
        <strong className="font-medium">Waiting for a reviewer</strong> to approve “{describeToolCall(card.data.toolName, card.data.args)}”. The
        agent is paused; this chat updates by itself when they decide.
      </span>
    </p>
  );
}

function EmptyChat({ onPick }: { onPick: (text: string) => void }) {
  return (
    <div className="flex flex-col items-center gap-4 py-12 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
        <ShieldCheck className="size-6" aria-hidden />
      </div>
      <div>
        <h2 className="text-lg font-semibold">What should the agent do?</h2>
        <p className="mt-1 max-w-md text-sm text-muted-foreground">
          It can look things up right away. Anything sensitive — deleting, refunding, emailing — waits for an approval first.
        </p>
      </div>
      <ul className="flex flex-wrap justify-center gap-2" aria-label="Suggestions">
        {SUGGESTIONS.map((text) => (
          <li key={text}>
            <button
              type="button"
              onClick={() => onPick(text)}
              className="rounded-full border border-border px-3 py-1.5 text-sm hover:bg-muted focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
            >
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
