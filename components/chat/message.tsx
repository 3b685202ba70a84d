'use client';

import { isToolUIPart } from 'ai';
import { Bot, MessageCircleQuestionMark, Square, TriangleAlert } from 'lucide-react';
import { ApprovalCard } from './approval-card';
import { Markdown } from './markdown';
import { QuestionCard } from './question-card';
import { ToolCallCard } from './tool-call-card';
import { asToolPart, type ToolPartView } from './tool-status';
import { isCardPart, toolPartIdFor, type CardAction, type CardPart, type ChatMessage } from './types';
import { revealBidi, type People } from '@/lib/present/describe';
import type { ReviewerQuestionData } from '@/lib/ui-stream/map';
import { readableErrorText } from '@/components/ui/readable';

export interface MessageViewProps {
  message: ChatMessage;
  viewerId: string;
  people: People;
  /** This message is the one streaming right now. */
  streaming: boolean;
  /** toolCallId whose decision or answer is being sent. */
  actingOn: string | null;
  /** A request is in flight, so cards wait. */
  busy: boolean;
  onAction: (action: CardAction) => void;
}

function cardId(part: CardPart): string {
  return part.id ?? part.data.toolCallId;
}

/** One chat message. A card and the tool part of the same call render as one block. */
export function MessageView({ message, viewerId, people, streaming, actingOn, busy, onAction }: MessageViewProps) {
  if (message.role === 'user') {
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return (
      <div data-testid="message-user" className="flex justify-end">
        <div className="max-w-[85%] rounded-2xl rounded-br-md bg-primary px-4 py-2 text-sm whitespace-pre-wrap [overflow-wrap:anywhere] text-primary-foreground">
          <bdi>{revealBidi(text)}</bdi>
        </div>
      </div>
    );
  }

  const question = message.parts.find((part) => part.type === 'data-reviewer-question');
  if (question?.type === 'data-reviewer-question') return <ReviewerQuestion data={question.data} />;

  const toolIds = new Set(message.parts.flatMap((part) => (isToolUIPart(part) ? [part.toolCallId] : [])));
  // Cards by the tool part they are drawn with (a sub-agent's cards with their delegation's).
  const cardsById = new Map<string, CardPart[]>();
  for (const part of message.parts) {
    if (!isCardPart(part)) continue;
    const key = toolPartIdFor(cardId(part), toolIds) ?? cardId(part);
    const list = cardsById.get(key) ?? [];
    list.push(part);
    cardsById.set(key, list);
  }

  const renderCard = (card: CardPart, tool: ToolPartView | undefined, key: string) => {
    const common = {
      tool,
      viewerId,
      people,
      acting: actingOn === card.data.toolCallId,
      disabled: busy,
      onAction,
    };
    return card.type === 'data-tool-call-approval' ? (
      <ApprovalCard key={key} data={card.data} {...common} />
    ) : (
      <QuestionCard key={key} data={card.data} {...common} />
    );
  };

  const lastTextIndex = message.parts.findLastIndex((part) => part.type === 'text');
  const blocks = message.parts.flatMap((part, index) => {
    if (part.type === 'text') {
      if (!part.text.trim()) return [];
      const live = streaming && index === lastTextIndex && part.state !== 'done';
      // Model text may quote untrusted values: direction controls are shown, never obeyed.
      return [<Markdown key={index} text={revealBidi(part.text)} streaming={live} />];
    }
    if (part.type === 'reasoning') {
      if (!part.text.trim()) return [];
      // The model's reasoning, collapsed: open it to read how the model got to its answer or call.
      return [
        <details key={index} data-testid="reasoning" className="rounded-lg border border-border bg-muted/30 px-3 py-2 text-sm text-muted-foreground">
          <summary className="cursor-pointer select-none">{streaming && part.state !== 'done' ? 'Reasoning…' : 'Reasoning'}</summary>
          <p className="mt-2 whitespace-pre-wrap [overflow-wrap:anywhere]">
            <bdi>{revealBidi(part.text)}</bdi>
          </p>
        </details>,
      ];
    }
    const tool = asToolPart(part);
    if (tool) {
      const cards = cardsById.get(tool.toolCallId);
      // Keyed by call, so a card keeps its state (and focus) when the message is rebuilt around it.
      if (cards?.length) return cards.map((card, n) => renderCard(card, tool, `card:${cardId(card)}:${n}`));
      return [<ToolCallCard key={index} part={tool} streaming={streaming} />];
    }
    if (part.type === 'data-run-error' && part.data.code === 'RUN_STOPPED') {
      // Someone pressed Stop: not a failure.
      return [
        <p key={index} role="status" data-testid="run-stopped" className="flex items-center gap-2 text-sm text-muted-foreground">
          <Square className="size-3 fill-current" aria-hidden />
          Stopped
        </p>,
      ];
    }
    if (part.type === 'data-run-error') {
      return [
        <p
          key={index}
          role="alert"
          data-testid="run-error"
          data-code={part.data.code}
          className="flex items-start gap-2 rounded-lg border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm"
        >
          <TriangleAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
          <span className="whitespace-pre-line">{readableErrorText(part.data.message)}</span>
        </p>,
      ];
    }
    // A card whose call has a tool part was drawn with it above.
    if (isCardPart(part) && toolPartIdFor(cardId(part), toolIds) === undefined) {
      const n = (cardsById.get(cardId(part)) ?? []).indexOf(part);
      return [renderCard(part, undefined, `card:${cardId(part)}:${Math.max(n, 0)}`)];
    }
    return [];
  });

  return (
    <div data-testid="message-assistant" className="flex gap-3">
      <div className="mt-0.5 hidden size-7 shrink-0 items-center justify-center rounded-full border border-border bg-card sm:flex" aria-hidden>
        <Bot className="size-4 text-muted-foreground" />
      </div>
      <div className="flex min-w-0 flex-1 flex-col gap-3">
        {blocks.length > 0 ? (
          blocks
        ) : streaming ? (
          <p className="animate-pulse text-sm text-muted-foreground">Thinking…</p>
        ) : (
          <p className="text-sm text-muted-foreground">No reply.</p>
        )}
      </div>
    </div>
  );
}

/** A reviewer's question about a pending call, in the requester's chat (answer by replying in the chat). */
function ReviewerQuestion({ data }: { data: ReviewerQuestionData }) {
  return (
    <div data-testid="reviewer-question" className="flex gap-3">
      <div className="mt-0.5 hidden size-7 shrink-0 items-center justify-center rounded-full border border-border bg-card sm:flex" aria-hidden>
        <MessageCircleQuestionMark className="size-4 text-primary" />
      </div>
      <div className="flex min-w-0 flex-1 flex-col gap-1 rounded-lg border border-primary/40 bg-card px-4 py-3">
        <p className="text-xs text-muted-foreground">
          Question from <bdi className="font-medium text-foreground">{revealBidi(data.byName)}</bdi>
          {data.byEmail ? <bdi> &lt;{revealBidi(data.byEmail)}&gt;</bdi> : null}, reviewer
          {data.title ? (
            <>
              {' '}
              · about “<bdi>{revealBidi(data.title)}</bdi>”
            </>
          ) : null}
        </p>
        <p className="text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">
          <bdi>{revealBidi(data.body)}</bdi>
        </p>
        <p className="text-xs text-muted-foreground">Reply here in the chat; the reviewer reads it before deciding.</p>
      </div>
    </div>
  );
}
