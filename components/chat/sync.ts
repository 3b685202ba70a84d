import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import type { People } from '@/lib/present/describe';
import { isCardPart, pendingCards, type ChatMessage } from './types';

/**
 * Pure rules of the chat's sync with the server: whether the server's copy of a thread is ahead of
 * the one on screen, whether an error is a broken stream (to re-attach) or an answer, and the
 * sentence an error is shown as. No React here, so they are tested without a browser.
 */

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
export function serverIsAhead(client: ChatMessage[], server: ChatMessage[]): boolean {
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

/**
 * Whether an error is the answer's stream breaking off (the server died or the connection
 * dropped) rather than an answer from the server: a failed fetch or read, never an API error.
 */
export function isBrokenStream(error: Error): boolean {
  if (parseApiError(error.message)) return false;
  return error instanceof TypeError || /network|failed to fetch|terminated|load failed|connection/i.test(error.message);
}

/**
 * The banner's sentence for an error of the chat: ALREADY_DECIDED points at the card (which now
 * shows the decision), an API error is said in words, a sentence from the stream is shown as it is,
 * and markup, JSON or a failed fetch get the generic sentence.
 */
export function toFriendly(error: Error, people: People, viewerId: string): FriendlyError {
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
