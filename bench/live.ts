/**
 * The live updates of `npm run bench`, over HTTP: how long another person's decision takes to reach
 * the requester's open chat, and a new call a reviewer's open inbox. Each is read the way the
 * browser's components read it:
 *
 * - the chat (components/chat/chat-view.tsx, thread-activity.ts) listens to
 *   `GET /api/chat/{id}/events`; on an event it attaches to `GET /api/chat/{id}/stream`, and when
 *   that answers 204 (nothing streams any more) it reads `GET /api/chat/{id}`. A sample ends when the
 *   card arrives decided (`data-tool-call-approval` with `resumed: true`), timed from the moment the
 *   reviewer sends the decision (`POST /api/runs/{runId}/tool-calls/{toolCallId}/decision`);
 * - the inbox (components/inbox/live-refresh.ts) listens to `GET /api/inbox/events`; on an event it
 *   refreshes the page (`router.refresh()`: the page's React Server Components payload, `GET /inbox`
 *   with `RSC: 1`). A sample ends when that payload lists the new call, timed from the moment the
 *   requester's stream shows the approval card.
 *
 * The call is a refund of 150 on an order that does not exist (`/tool issue-refund`): the demo
 * policies make it wait for a reviewer other than the requester; the reviewer declines it, so
 * nothing is refunded and the inbox stays as short as it was.
 */
import { createParser } from 'eventsource-parser';
import { randomUUID } from 'node:crypto';
import { summarise, type Summary } from './stats';

/** What the live figures measured (ms), pooled over the samples. */
export interface LiveResult {
  /** decision sent by a reviewer → the decided card in the requester's open chat */
  decisionToChat: Summary | null;
  /** approval card in the requester's stream → the call listed in a reviewer's open inbox */
  newCallToInbox: Summary | null;
}

type Part = { type: string; data?: Record<string, unknown> };

/** The longest a sample may take before it counts as a failure, in ms. */
const SAMPLE_TIMEOUT_MS = 60_000;

/** An open SSE feed: resolves `next()` with each event's data; `connected` once the server listens. */
function openFeed(url: string, cookie: string) {
  const abort = new AbortController();
  const queue: string[] = [];
  let wake: (() => void) | null = null;
  let connectedResolve!: () => void;
  const connected = new Promise<void>((resolve) => (connectedResolve = resolve));
  const parser = createParser({
    onEvent: (event) => {
      queue.push(event.data);
      wake?.();
    },
    onComment: (comment) => {
      if (comment.trim() === 'connected') connectedResolve();
    },
  });
  const done = (async () => {
    const response = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal });
    if (response.status !== 200 || !response.body) throw new Error(`${url}: HTTP ${response.status}`);
    for await (const text of response.body.pipeThrough(new TextDecoderStream())) parser.feed(text);
  })().catch((error: Error) => {
    if (!abort.signal.aborted) throw error;
  });
  return {
    connected: Promise.race([connected, done.then(() => Promise.reject(new Error(`${url} ended before it connected`)))]),
    /** The next event's data (waits for it). */
    async next(): Promise<string> {
      while (queue.length === 0) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), done.then(() => Promise.reject(new Error(`${url} ended`)))]);
        wake = null;
      }
      return queue.shift()!;
    },
    close: async () => {
      abort.abort();
      await done;
    },
  };
}

/** Reads a UI message stream, calling `onPart` for each part until it returns true (then stops reading). */
async function readParts(response: Response, onPart: (part: Part) => boolean): Promise<boolean> {
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let found = false;
  const parser = createParser({
    onEvent: (event) => {
      if (!found && event.data !== '[DONE]' && onPart(JSON.parse(event.data) as Part)) found = true;
    },
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return found;
      parser.feed(value);
      if (found) return true;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The command that makes the scripted model ask for a refund that waits for a reviewer. */
const refundCommand = (order: string) => `/tool issue-refund ${JSON.stringify({ orderId: order, amount: 150 })}`;

/**
 * Starts a thread as the requester whose refund on `order` waits for a reviewer, read until the stream ends.
 * @param onCard called when the approval card arrives
 * @returns the run and tool call ids of the waiting call
 */
async function startWaitingRefund(baseUrl: string, cookie: string, threadId: string, order: string, onCard: () => void = () => {}) {
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl, cookie },
    body: JSON.stringify({ id: threadId, messages: [{ id: `m-${threadId}`, role: 'user', parts: [{ type: 'text', text: refundCommand(order) }] }] }),
  });
  let call: { runId: string; toolCallId: string } | undefined;
  await readParts(response, (part) => {
    if (part.type === 'data-tool-call-approval' && !call) {
      call = { runId: String(part.data!.runId), toolCallId: String(part.data!.toolCallId) };
      onCard();
    }
    return false;
  });
  if (!call) throw new Error('POST /api/chat ended without an approval card');
  return call;
}

/** Declines a call as the reviewer and reads the continuation to its end. */
async function decline(baseUrl: string, cookie: string, call: { runId: string; toolCallId: string }) {
  const response = await fetch(`${baseUrl}/api/runs/${call.runId}/tool-calls/${encodeURIComponent(call.toolCallId)}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl, cookie },
    body: JSON.stringify({ approved: false, reason: 'bench: live updates' }),
  });
  await readParts(response, () => false);
}

const decided = (part: Part, toolCallId: string) =>
  part.type === 'data-tool-call-approval' && part.data?.toolCallId === toolCallId && part.data?.resumed === true;

/** One sample of "decision by another → event in the requester's open chat", in ms. */
async function decisionToChat(baseUrl: string, requester: string, reviewer: string): Promise<number> {
  const threadId = `bench-live-${randomUUID()}`;
  const call = await startWaitingRefund(baseUrl, requester, threadId, `ord-live-${randomUUID().slice(0, 8)}`);
  const feed = openFeed(`${baseUrl}/api/chat/${threadId}/events`, requester);
  try {
    await feed.connected;
    const t0 = performance.now();
    const deciding = decline(baseUrl, reviewer, call);
    for (;;) {
      await feed.next();
      // What the chat does on an event: attach to the stream, or read the thread when nothing streams.
      const stream = await fetch(`${baseUrl}/api/chat/${threadId}/stream`, { headers: { cookie: requester } });
      let seen = false;
      if (stream.status === 204) {
        const body = (await (await fetch(`${baseUrl}/api/chat/${threadId}`, { headers: { cookie: requester } })).json()) as { messages: { parts: Part[] }[] };
        seen = body.messages.some((message) => message.parts.some((part) => decided(part, call.toolCallId)));
      } else {
        seen = await readParts(stream, (part) => decided(part, call.toolCallId));
      }
      if (seen) {
        const elapsed = performance.now() - t0;
        await deciding;
        return elapsed;
      }
    }
  } finally {
    await feed.close();
  }
}

/** One sample of "new call → open inbox", in ms. */
async function newCallToInbox(baseUrl: string, requester: string, reviewer: string): Promise<number> {
  const feed = openFeed(`${baseUrl}/api/inbox/events`, reviewer);
  try {
    await feed.connected;
    const order = `ord-live-${randomUUID().slice(0, 8)}`;
    let t0: number | undefined;
    const starting = startWaitingRefund(baseUrl, requester, `bench-live-${randomUUID()}`, order, () => (t0 ??= performance.now()));
    // What the inbox does on each event, while the requester's stream goes on: refresh the page (its
    // Server Components payload), until it lists the call (its order id is in the row's title).
    let at = 0;
    for (let listed = false; !listed; ) {
      await feed.next();
      const page = await fetch(`${baseUrl}/inbox`, { headers: { cookie: reviewer, rsc: '1' } });
      listed = (await page.text()).includes(order);
      at = performance.now();
    }
    const call = await starting;
    await decline(baseUrl, reviewer, call);
    return Math.max(0, at - t0!);
  } finally {
    await feed.close();
  }
}

/** `promise`, or a failure after SAMPLE_TIMEOUT_MS. */
function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS))),
  ]);
}

/**
 * Times both live figures, one sample after another (nothing else in flight).
 * @param options.requester session cookie of an end user (the demo user Ada)
 * @param options.reviewer session cookie of a reviewer (Rita), who decides and whose inbox is open
 * @param options.count samples per figure; `warmup` more are taken first and not recorded
 * @throws when a sample fails or takes over a minute
 */
export async function liveBench(options: { baseUrl: string; requester: string; reviewer: string; count: number; warmup: number }): Promise<LiveResult> {
  const chat: number[] = [];
  const inbox: number[] = [];
  for (let i = 0; i < options.warmup + options.count; i++) {
    const toChat = await withTimeout(decisionToChat(options.baseUrl, options.requester, options.reviewer), 'decision → chat');
    const toInbox = await withTimeout(newCallToInbox(options.baseUrl, options.requester, options.reviewer), 'new call → inbox');
    if (i < options.warmup) continue;
    chat.push(toChat);
    inbox.push(toInbox);
  }
  return { decisionToChat: summarise(chat), newCallToInbox: summarise(inbox) };
}
