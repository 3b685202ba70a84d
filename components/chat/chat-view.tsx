'use client';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { ArrowDown, ArrowUp, Hourglass, ShieldCheck } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { ChatErrorBanner } from './chat-error';
import { Composer } from './composer';
import { MessageView } from './message';
import {
  clearResponded,
  isCardPart,
  markResponded,
  messageIdOfCall,
  pendingCards,
  type CardAction,
  type CardPart,
  type ChatMessage,
} from './types';
import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import { callTitle, type People } from '@/components/ui/describe';
import { useHydrated } from '@/components/ui/use-hydrated';

export interface ChatViewProps {
  threadId: string;
  /** The agent a new thread is started with (ignored by the server for an existing thread). */
  agentId: string;
  /** Re-attach to a continuation streaming right now (GET /api/chat/{id}/stream). */
  resumeOnMount: boolean;
  /** The thread as stored on the server (empty for a new chat). */
  initialMessages: ChatMessage[];
  viewerId: string;
  people: People;
}

const SUGGESTIONS = ['delete record rec-42', "what's the weather?", 'refund order ord-1042 for 250', 'look up customer cus-1'];

/**
 * The stock transport, plus: when there is no active stream to re-attach to (204), the thread may
 * still have moved on, so `onNothingActive` fetches the server's copy.
 */
class ResumingTransport extends DefaultChatTransport<ChatMessage> {
  constructor(
    private readonly onNothingActive: () => void,
    options: ConstructorParameters<typeof DefaultChatTransport<ChatMessage>>[0],
  ) {
    super(options);
  }

  override async reconnectToStream(options: Parameters<DefaultChatTransport<ChatMessage>['reconnectToStream']>[0]) {
    const stream = await super.reconnectToStream(options);
    if (stream === null) this.onNothingActive();
    return stream;
  }
}

/** Every pending card id in the messages. */
function pendingIds(messages: ChatMessage[]): Set<string> {
  return new Set(messages.flatMap((message) => pendingCards(message).map((card) => card.data.toolCallId)));
}

function textLength(message: ChatMessage | undefined): number {
  return message?.parts.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0) ?? 0;
}

/**
 * Whether the server's copy of the thread is ahead of ours, i.e. someone moved it on elsewhere (a
 * reviewer decided, a run continued): it has more messages, shows a card as decided that we show
 * as pending, shows a waiting card's deadline set, moved or escalated, or its last message has grown. Never true for a copy that is merely older, so a late
 * refresh cannot take back what this tab already streamed.
 */
function serverIsAhead(client: ChatMessage[], server: ChatMessage[]): boolean {
  if (server.length !== client.length) return server.length > client.length;
  const waiting = pendingIds(client);
  const decidedThere = server.some((message) =>
    message.parts.some((part) => isCardPart(part) && part.data.resumed === true && waiting.has(part.data.toolCallId)),
  );
  if (decidedThere) return true;
  // A waiting card whose deadline was set, moved or escalated there (see lib/agent/deadline.ts).
  const deadlines = new Map(
    client.flatMap((message) => pendingCards(message).map((card) => [card.data.toolCallId, JSON.stringify('deadline' in card.data ? card.data.deadline : undefined)])),
  );
  const deadlineMoved = server.some((message) =>
    pendingCards(message).some(
      (card) => 'deadline' in card.data && card.data.deadline !== undefined && deadlines.has(card.data.toolCallId) && deadlines.get(card.data.toolCallId) !== JSON.stringify(card.data.deadline),
    ),
  );
  if (deadlineMoved) return true;
  // A quorum call got another reviewer's approval there ("2 of 3 approvals").
  if (moreApprovals(client, server)) return true;
  const [mine, theirs] = [client.at(-1), server.at(-1)];
  if (!mine || !theirs || mine.id !== theirs.id) return false;
  if (theirs.parts.length !== mine.parts.length) return theirs.parts.length > mine.parts.length;
  return textLength(theirs) > textLength(mine);
}

/** Whether a pending quorum card counts more approvals in `server` than in `client`. */
function moreApprovals(client: ChatMessage[], server: ChatMessage[]): boolean {
  const approvals = (messages: ChatMessage[]) =>
    new Map(
      messages.flatMap((message) =>
        message.parts.flatMap((part) => (isCardPart(part) && part.type === 'data-tool-call-approval' ? [[part.data.toolCallId, part.data.approvals ?? 0] as const] : [])),
      ),
    );
  const here = approvals(client);
  return [...approvals(server)].some(([id, count]) => here.has(id) && count > here.get(id)!);
}

/** Wait before attaching again to a stream that broke off, in ms … */
const RECONNECT_MS = 1_000;
/** … and how often, at most, in a row: a run's lost process is noticed within 1.5 leases (15 s). */
const MAX_RECONNECTS = 40;

/**
 * Whether an error is the answer's stream breaking off (the server died or the connection
 * dropped) rather than an answer from the server: a failed fetch or read, never an API error.
 */
function isBrokenStream(error: Error): boolean {
  if (parseApiError(error.message)) return false;
  return error instanceof TypeError || /network|failed to fetch|terminated|load failed|connection/i.test(error.message);
}

/** Wait before opening the activity feed again after the server refused it (e.g. 404, 429), in ms. */
const FEED_RETRY_MS = 5_000;

/**
 * Listens to `/api/chat/{id}/events` (SSE: the thread changed elsewhere) and calls `onActivity`.
 * The server answers 404 until the thread exists, so the feed opens only once `exists`; a refused
 * feed (EventSource gives up on an HTTP error) is opened again after FEED_RETRY_MS.
 * @returns whether the feed is connected (callers fall back to polling when it is not)
 */
function useThreadActivity(threadId: string, exists: boolean, onActivity: () => void): boolean {
  const [connected, setConnected] = useState(false);
  const callback = useRef(onActivity);
  callback.current = onActivity;
  useEffect(() => {
    if (!exists) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      source = new EventSource(`/api/chat/${encodeURIComponent(threadId)}/events`);
      source.onopen = () => setConnected(true);
      source.onmessage = () => callback.current();
      source.onerror = () => {
        const state = source?.readyState;
        setConnected(state === EventSource.OPEN);
        if (state === EventSource.CLOSED) retry = setTimeout(open, FEED_RETRY_MS);
      };
    };
    open();
    return () => {
      clearTimeout(retry);
      source?.close();
      setConnected(false);
    };
  }, [threadId, exists]);
  return connected;
}

function toFriendly(error: Error, people: People, viewerId: string): FriendlyError {
  const parsed = parseApiError(error.message);
  if (parsed?.code === 'ALREADY_DECIDED') {
    // The chat fetches the outcome by itself (see below), so the card is the next step.
    const decidedBy = (parsed.details as { decidedBy?: unknown } | undefined)?.decidedBy;
    const whose = decidedBy === viewerId ? 'your' : decidedBy ? 'their' : 'the';
    return { ...friendlyError(parsed, people, viewerId), next: `The card now shows ${whose} decision.` };
  }
  if (parsed) return friendlyError(parsed, people, viewerId);
  const text = error.message.trim();
  // An error chunk inside the stream carries a sentence from the server; a failed fetch does not.
  // Markup or JSON is never shown as it is.
  if (text && !(error instanceof TypeError) && !/^[<[{]/.test(text) && text.length < 400) {
    return { code: 'STREAM_ERROR', message: text, next: 'Try again, or start a new chat.', issues: [] };
  }
  return friendlyError(null, people, viewerId);
}

/** The conversation: messages streaming in, approval and question cards, and the composer. */
export function ChatView({ threadId, agentId, resumeOnMount, initialMessages, viewerId, people }: ChatViewProps) {
  const router = useRouter();
  const transport = useMemo(
    () =>
      new ResumingTransport(() => router.refresh(), {
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
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The server has the thread once an answer streamed into it (or it was loaded with messages).
  const threadExists = messages.some((message) => message.role === 'assistant');
  const live = useThreadActivity(threadId, threadExists, () => {
    if (busyRef.current || refreshTimer.current) return;
    // Attach to the run streaming elsewhere; when nothing streams any more, the transport
    // refreshes the server's copy instead. Notices of one burst become one attach, which is never
    // postponed by later notices (a streaming run sends them all the time).
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = undefined;
      void resumeStream();
    }, 150);
  });
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

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
        <Composer value={draft} onChange={setDraft} onSend={() => send(draft)} onStop={() => void stop()} busy={busy} />
        <p className="text-center text-xs text-muted-foreground">Sensitive actions wait for approval before they run.</p>
      </div>
    </div>
  );
}

/**
 * Cards waiting for the viewer (`data-awaiting-you`) that are scrolled out of the message list's
 * view, watched with an IntersectionObserver on the scroller.
 * @returns how many, the first of them, and whether it lies above the visible part
 */
function useOutOfViewCards(scroller: RefObject<HTMLDivElement | null>, messages: ChatMessage[]) {
  const [state, setState] = useState<{ count: number; first: string | null; above: boolean }>({ count: 0, first: null, above: false });
  const key = messages
    .flatMap((message) => pendingCards(message).map((card) => card.data.toolCallId))
    .join('|');
  useEffect(() => {
    const root = scroller.current;
    const cards = root ? [...root.querySelectorAll<HTMLElement>('[data-awaiting-you="true"]')] : [];
    if (!root || cards.length === 0) {
      setState({ count: 0, first: null, above: false });
      return;
    }
    const out = new Map<Element, boolean>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          out.set(entry.target, !entry.isIntersecting);
        }
        const hidden = cards.filter((card) => out.get(card));
        const first = hidden[0];
        setState({
          count: hidden.length,
          first: first?.dataset.cardId ?? null,
          above: first ? first.getBoundingClientRect().top < root.getBoundingClientRect().top : false,
        });
      },
      { root, threshold: 0.2 },
    );
    for (const card of cards) observer.observe(card);
    return () => observer.disconnect();
  }, [scroller, key, messages.length]);
  return state;
}

/** "1 action waiting for you": sticks to the bottom of the messages and jumps to the first such card. */
function PendingReminder({ count, first, above }: { count: number; first: string | null; above: boolean }) {
  const Arrow = above ? ArrowUp : ArrowDown;
  return (
    <div className="pointer-events-none absolute inset-x-0 bottom-3 flex justify-center px-4">
      <button
        type="button"
        data-testid="pending-reminder"
        onClick={() => {
          const card = first ? document.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(first)}"]`) : null;
          card?.scrollIntoView({ block: 'center', behavior: 'smooth' });
          card?.focus({ preventScroll: true });
        }}
        className="pointer-events-auto inline-flex items-center gap-2 rounded-full bg-primary px-4 py-2 text-sm font-medium text-primary-foreground shadow-lg hover:bg-primary/90 focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background focus-visible:outline-none"
      >
        <Arrow className="size-4" aria-hidden />
        {count === 1 ? '1 action waiting for you' : `${count} actions waiting for you`}
      </button>
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
        <strong className="font-medium">Waiting for a reviewer</strong> to approve “{callTitle(card.data)}”. The
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
