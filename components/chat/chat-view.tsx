'use client';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ChatErrorBanner } from './chat-error';
import { EmptyChat, PendingReminder, ReviewerWait, useOutOfViewCards } from './chat-parts';
import { Composer } from './composer';
import { MessageView } from './message';
import { isBrokenStream, serverIsAhead, toFriendly } from './sync';
import { useThreadActivity } from './thread-activity';
import { clearResponded, markResponded, messageIdOfCall, pendingCards, type CardAction, type ChatMessage } from './types';
import type { People } from '@/lib/present/describe';
import { useHydrated } from '@/components/ui/use-hydrated';

export interface ChatViewProps {
  threadId: string;
  /** The agent a new thread is started with (ignored by the server for an existing thread). */
  agentId: string;
  /** Re-attach to a continuation streaming right now (GET /api/chat/{id}/stream). */
  resumeOnMount: boolean;
  /** The thread as stored on the server (empty for a new chat). */
  initialMessages: ChatMessage[];
  /** The thread's version that snapshot was read at (lib/store/thread-version.ts); null for a new chat. */
  version: string | null;
  viewerId: string;
  people: People;
}

/**
 * The stock transport, plus: when there is no active stream to re-attach to (204), the thread may
 * still have moved on, so `onNothingActive` fetches the server's copy (awaited: the resume ends
 * once that copy is in).
 */
class ResumingTransport extends DefaultChatTransport<ChatMessage> {
  constructor(
    private readonly onNothingActive: () => Promise<void>,
    options: ConstructorParameters<typeof DefaultChatTransport<ChatMessage>>[0],
  ) {
    super(options);
  }

  override async reconnectToStream(options: Parameters<DefaultChatTransport<ChatMessage>['reconnectToStream']>[0]) {
    const stream = await super.reconnectToStream(options);
    if (stream === null) await this.onNothingActive();
    return stream;
  }
}

/** Wait before attaching again to a stream that broke off, in ms … */
const RECONNECT_MS = 1_000;
/** … and how often, at most, in a row: a run's lost process is noticed within 1.5 leases (15 s). */
const MAX_RECONNECTS = 40;

/** The conversation: messages streaming in, approval and question cards, and the composer. */
export function ChatView({ threadId, agentId, resumeOnMount, initialMessages, version, viewerId, people: pagePeople }: ChatViewProps) {
  const router = useRouter();
  // The server's copy of the thread, read when nothing streams (see fetchServerCopy below).
  const serverCopy = useRef<() => Promise<void>>(async () => {});
  const transport = useMemo(
    () =>
      new ResumingTransport(() => serverCopy.current(), {
        api: '/api/chat',
        // Thread ids are THREAD_ID (letters, digits, - and _) everywhere now, so encoding changes
        // nothing; it stays so no URL is built from unencoded text (the SDK's default does not encode).
        prepareReconnectToStreamRequest: ({ id }) => ({ api: `/api/chat/${encodeURIComponent(id)}/stream` }),
        // The server keeps the history; it only needs the newest message (and any decision).
        prepareSendMessagesRequest: ({ id, messages, body }) => ({
          // A decision or an answer continues a run; it carries no message at all.
          body: { id, agentId, messages: body && ('decision' in body || 'resume' in body) ? [] : messages.slice(-1), ...body },
        }),
      }),
    [router, agentId],
  );
  // The text of the message being sent, until its answer starts streaming.
  const sending = useRef<string | null>(null);
  const { messages, sendMessage, status, stop, error, clearError, setMessages, resumeStream } = useChat<ChatMessage>({
    id: threadId,
    messages: initialMessages,
    transport,
    // A reload during a continuation re-attaches to it (GET /api/chat/{id}/stream).
    resume: resumeOnMount,
    onFinish: ({ isError }) => {
      // After a failure the server's copy has nothing new (and a refresh while offline would
      // replace the page with the browser's error page).
      if (isError) return;
      sending.current = null;
      // New threads and titles show up in the sidebar.
      router.refresh();
    },
  });
  const [draft, setDraft] = useState('');
  // The text of a message whose request failed before the agent answered: it is back in the
  // composer, and Retry sends it again.
  const [unsent, setUnsent] = useState<string | null>(null);
  const [focusCard, setFocusCard] = useState<string | null>(null);
  const [actingOn, setActingOn] = useState<string | null>(null);
  const [actingMessage, setActingMessage] = useState<string | null>(null);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const busy = status === 'submitted' || status === 'streaming';
  const hydrated = useHydrated();
  // Names of the people the server's copy named (a reviewer who just decided), until the page's own arrive.
  const [fetchedPeople, setFetchedPeople] = useState<People>({});
  const people = useMemo(() => ({ ...fetchedPeople, ...pagePeople }), [fetchedPeople, pagePeople]);

  // Adopt the server's copy when it is ahead (someone decided elsewhere). Only fresh server data
  // counts, and never while this tab streams: its own stream is the newer copy then.
  const seenServerCopy = useRef(initialMessages);
  useEffect(() => {
    if (initialMessages === seenServerCopy.current || busy) return;
    seenServerCopy.current = initialMessages;
    setMessages((current) => (serverIsAhead(current, initialMessages) ? initialMessages : current));
  }, [initialMessages, busy, setMessages]);

  const pending = useMemo(() => messages.flatMap((message) => pendingCards(message)), [messages]);
  const reviewerWait = pending.find((card) => card.type === 'data-tool-call-approval' && card.data.approvers === 'reviewer');

  // The thread changed elsewhere (a reviewer decided, the run went on): fetch the server's copy.
  const busyRef = useRef(busy);
  busyRef.current = busy;
  // When nothing streams, the thread's messages as JSON (`GET /api/chat/{id}`, with the names of the
  // people on its cards), adopted when ahead of ours; the page is then refreshed for the rest (the
  // thread list's hourglass). Far less work than a refresh of the whole page before the card changes.
  serverCopy.current = async () => {
    try {
      const response = await fetch(`/api/chat/${encodeURIComponent(threadId)}`, { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { messages: ChatMessage[]; people?: People };
      if (busyRef.current) return;
      if (body.people) setFetchedPeople((current) => ({ ...current, ...body.people }));
      let ahead = false;
      setMessages((current) => {
        ahead = serverIsAhead(current, body.messages);
        return ahead ? body.messages : current;
      });
      if (ahead) router.refresh();
    } catch {
      // Offline or refused: the page's own copy, when it can be had.
      router.refresh();
    }
  };
  // The server has the thread once an answer streamed into it (or it was loaded with messages).
  const threadExists = messages.some((message) => message.role === 'assistant');
  // Notices are followed at once: attach to the run streaming elsewhere, or, when nothing streams
  // any more, read the server's copy (the transport). Notices during a catch-up make one more after it.
  const catchingUp = useRef(false);
  const catchUpAgain = useRef(false);
  const live = useThreadActivity(threadId, threadExists, version, () => {
    if (busyRef.current) return;
    if (catchingUp.current) {
      catchUpAgain.current = true;
      return;
    }
    catchingUp.current = true;
    void (async () => {
      try {
        do {
          catchUpAgain.current = false;
          await resumeStream();
        } while (catchUpAgain.current && !busyRef.current);
      } finally {
        catchingUp.current = false;
      }
    })();
  });

  // Without the live feed, look for a reviewer's decision every few seconds instead.
  useEffect(() => {
    if (live || !reviewerWait || busy) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, 4_000);
    return () => clearInterval(timer);
  }, [live, reviewerWait, busy, router]);

  const friendly = error ? toFriendly(error, people, viewerId) : null;
  const conflict = friendly?.code === 'ALREADY_DECIDED';
  useEffect(() => {
    // Someone else decided first: fetch the outcome so the card shows it.
    if (conflict) router.refresh();
  }, [conflict, router]);

  // Follow the conversation while the reader is at the bottom.
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  useEffect(() => {
    const el = scroller.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, friendly?.message]);

  const send = useCallback(
    (text: string) => {
      const trimmed = text.trim();
      if (!trimmed || busy) return;
      streamed.current = false;
      clearError();
      setUnsent(null);
      stickToBottom.current = true;
      setDraft('');
      sending.current = trimmed;
      void sendMessage({ text: trimmed });
    },
    [busy, clearError, sendMessage],
  );

  // Stop cancels the turn on the server (on whichever server runs it, behaviour §5b); the stream
  // stays open and ends with "Stopped". Only when nothing runs there (or the request fails) does
  // this tab just stop reading.
  const stopTurn = useCallback(async () => {
    const response = await fetch(`/api/chat/${encodeURIComponent(threadId)}/stop`, { method: 'POST' }).catch(() => null);
    const body = response?.ok ? ((await response.json().catch(() => null)) as { stopping?: boolean } | null) : null;
    if (!body?.stopping) await stop();
  }, [threadId, stop]);

  // When the answer's stream breaks off (its server died), attach again (GET /api/chat/{id}/stream)
  // until it is back — on any server, once another one has taken the run over — or nothing is
  // active any more (then the transport fetches the server's copy). No user action is needed.
  const streamed = useRef(false);
  const reconnects = useRef(0);
  const [reconnecting, setReconnecting] = useState(false);
  useEffect(() => {
    if (status === 'streaming') streamed.current = true;
    if (status === 'ready') {
      streamed.current = false;
      reconnects.current = 0;
      setReconnecting(false);
    }
  }, [status]);
  useEffect(() => {
    if (status !== 'error' || !error || !streamed.current || !isBrokenStream(error)) return;
    if (reconnects.current >= MAX_RECONNECTS) {
      setReconnecting(false);
      return;
    }
    setReconnecting(true);
    const timer = setTimeout(() => {
      reconnects.current += 1;
      void resumeStream();
    }, RECONNECT_MS);
    return () => clearTimeout(timer);
  }, [status, error, resumeStream]);

  // Once the answer streams, the message was accepted. If the request fails before that, the
  // message never reached the thread: take it out of the list and give the text back.
  useEffect(() => {
    if (status === 'streaming') sending.current = null;
    if (status !== 'error' || sending.current === null) return;
    const text = sending.current;
    sending.current = null;
    setMessages((current) => {
      const last = current.at(-1);
      return last?.role === 'user' && last.parts.some((part) => part.type === 'text' && part.text.trim() === text) ? current.slice(0, -1) : current;
    });
    setDraft((current) => (current.trim() ? current : text));
    setUnsent(text);
  }, [status, setMessages]);

  const onAction = useCallback(
    async (action: CardAction) => {
      clearError();
      setActingOn(action.toolCallId);
      setActingMessage(messageIdOfCall(messagesRef.current, action.toolCallId) ?? null);
      // The continuation must stream into the message holding this card, even when it is not the last.
      setMessages((current) => markResponded(current, action.toolCallId, action.type === 'resume' || action.approved));
      try {
        if (action.type === 'decision') {
          const { type: _type, ...decision } = action;
          await sendMessage(undefined, { body: { decision } });
        } else {
          const { type: _type, ...resume } = action;
          await sendMessage(undefined, { body: { resume } });
        }
      } finally {
        setMessages(clearResponded);
        setActingOn(null);
        setActingMessage(null);
        setFocusCard(action.toolCallId);
      }
    },
    [clearError, sendMessage, setMessages],
  );

  // After a decision or an answer, focus stays on its card (the card took it when the buttons went
  // away); if the card was rebuilt meanwhile, it is given focus back.
  useEffect(() => {
    if (!focusCard) return;
    setFocusCard(null);
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    scroller.current?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(focusCard)}"]`)?.focus({ preventScroll: true });
  }, [focusCard, messages]);

  const waitingForYou = useOutOfViewCards(scroller, messages);

  // A decision continues the message holding its card, which need not be the last.
  const streamingId = actingMessage ?? messages.at(-1)?.id;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="relative flex min-h-0 flex-1 flex-col">
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
                  streaming={busy && message.id === streamingId}
                  actingOn={actingOn}
                  busy={busy || !hydrated}
                  onAction={onAction}
                />
              ))
            )}
            {status === 'submitted' && messages.at(-1)?.role === 'user' ? (
              <p className="animate-pulse text-sm text-muted-foreground sm:pl-10">Thinking…</p>
            ) : null}
          </div>
        </div>
        {waitingForYou.count > 0 ? <PendingReminder {...waitingForYou} /> : null}
      </div>

      <div className="mx-auto flex w-full max-w-3xl flex-col gap-2 px-4 pt-2 pb-4">
        {reviewerWait ? <ReviewerWait card={reviewerWait} /> : null}
        {reconnecting && status !== 'ready' ? (
          <p role="status" data-testid="chat-reconnecting" className="text-sm text-muted-foreground">
            The connection dropped; reconnecting…
          </p>
        ) : null}
        {friendly && !(reconnecting && status !== 'ready') ? (
          <ChatErrorBanner
            error={
              unsent !== null
                ? { ...friendly, message: `Your message was not sent. ${friendly.message}`, next: 'It is back in the message box; Retry sends it again.' }
                : friendly
            }
            onDismiss={() => {
              clearError();
              setUnsent(null);
            }}
            onRefresh={() => router.refresh()}
            onRetry={unsent !== null ? () => send(draft.trim() ? draft : unsent) : undefined}
          />
        ) : null}
        <Composer value={draft} onChange={setDraft} onSend={() => send(draft)} onStop={() => void stopTurn()} busy={busy} />
        <p className="text-center text-xs text-muted-foreground">Sensitive actions wait for approval before they run.</p>
      </div>
    </div>
  );
}
