import type { UIMessage } from 'ai';
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
export type CardAction =
  | { type: 'decision'; runId: string; toolCallId: string; approved: boolean; reason?: string; fingerprint: string }
  | { type: 'resume'; runId: string; toolCallId: string; resumeData: unknown };

/** Cards of a message that still wait for someone. */
export function pendingCards(message: ChatMessage | undefined): CardPart[] {
  if (!message || message.role !== 'assistant') return [];
  return message.parts.filter(isCardPart).filter((part) => !part.data.resumed);
}
