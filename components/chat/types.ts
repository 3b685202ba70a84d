import { isToolUIPart, type UIMessage } from 'ai';
import type { ToolPartView } from './tool-status';
import type { People } from '@/lib/present/describe';
import { CALL_ID_SEPARATOR } from '@/lib/agent/call-id';
import type { ApprovalCardData, CountersignDataTypes, SuspendedCardData } from '@/lib/ui-stream/map';

/** A chat message as `useChat` holds it (same shape the server's `loadThreadUIMessages` returns). */
export type ChatMessage = UIMessage<unknown, CountersignDataTypes>;
export type ChatPart = ChatMessage['parts'][number];

export type ApprovalPart = { type: 'data-tool-call-approval'; id?: string; data: ApprovalCardData };
export type SuspendedPart = { type: 'data-tool-call-suspended'; id?: string; data: SuspendedCardData };
export type CardPart = ApprovalPart | SuspendedPart;

export function isCardPart(part: ChatPart): part is CardPart {
  return part.type === 'data-tool-call-approval' || part.type === 'data-tool-call-suspended';
}

/** A decision or an answer the viewer sends from a card. */
/** What both chat cards (approval and question) receive. */
export interface CardProps<DATA> {
  data: DATA;
  /** The standard tool part of the same call, when the message has one (shows what happened after). */
  tool?: ToolPartView;
  viewerId: string;
  people: People;
  /** This card's decision or answer is being sent. */
  acting: boolean;
  /** Another request is in flight; buttons wait. */
  disabled: boolean;
  onAction: (action: CardAction) => void;
}

export type CardAction =
  | { type: 'decision'; runId: string; toolCallId: string; approved: boolean; reason?: string; fingerprint: string; withdraw?: true }
  | { type: 'resume'; runId: string; toolCallId: string; resumeData: unknown };

/** Cards of a message that still wait for someone. */
export function pendingCards(message: ChatMessage | undefined): CardPart[] {
  if (!message || message.role !== 'assistant') return [];
  return message.parts.filter(isCardPart).filter((part) => !part.data.resumed);
}

/** Whether `part` is a tool part (the AI SDK's `isToolUIPart`), of `toolCallId` when given. */
function isToolPartOf(part: ChatPart, toolCallId?: string): part is ToolPartView {
  return isToolUIPart(part) && (toolCallId === undefined || part.toolCallId === toolCallId);
}

/**
 * The tool part a card of `toolCallId` belongs with, among a message's tool part ids: the call's
 * own; or, for a sub-agent's call (`<delegation id>~…~<own id>`), the top-level delegation's, whose
 * id starts the card's (the longest such, should an id itself contain the separator).
 * @returns undefined when the message has no tool part for it
 */
export function toolPartIdFor(toolCallId: string, toolPartIds: Iterable<string>): string | undefined {
  let found: string | undefined;
  for (const id of toolPartIds) {
    if (id === toolCallId) return id;
    if (toolCallId.startsWith(`${id}${CALL_ID_SEPARATOR}`) && (found === undefined || id.length > found.length)) found = id;
  }
  return found;
}

/**
 * Marks the tool part of `toolCallId` as answered ('approval-responded'), so that `useChat`'s
 * `sendMessage(undefined, …)` continues the message holding that call rather than the last one
 * (the AI SDK picks the newest assistant message with such a part). Without a tool part for the
 * call, nothing is marked and the last message is continued.
 */
export function markResponded(messages: ChatMessage[], toolCallId: string, approved: boolean): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return message;
    // A sub-agent's card belongs with its top-level delegation's tool part.
    const partId = toolPartIdFor(
      toolCallId,
      message.parts.flatMap((part) => (isToolPartOf(part) && part.toolCallId ? [part.toolCallId] : [])),
    );
    if (partId === undefined) return message;
    return {
      ...message,
      parts: message.parts.map((part) => {
        if (!isToolPartOf(part, partId) || part.state !== 'input-available') return part;
        return { ...part, state: 'approval-responded', approval: { id: partId, approved } } satisfies ToolPartView;
      }),
    };
  });
}

/** Undoes `markResponded` for any part the continuation did not move on (e.g. a refused decision). */
export function clearResponded(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (!message.parts.some((part) => isToolPartOf(part) && part.state === 'approval-responded')) return message;
    return {
      ...message,
      parts: message.parts.map((part) => {
        if (!isToolPartOf(part) || part.state !== 'approval-responded') return part;
        const { approval: _approval, ...rest } = part;
        return { ...rest, state: 'input-available' } satisfies ToolPartView;
      }),
    };
  });
}

/** The id of the message holding the card of `toolCallId`. */
export function messageIdOfCall(messages: ChatMessage[], toolCallId: string): string | undefined {
  return messages.find((message) => message.parts.some((part) => isCardPart(part) && part.data.toolCallId === toolCallId))?.id;
}
