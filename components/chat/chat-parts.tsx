'use client';

import { ArrowDown, ArrowUp, Hourglass, ShieldCheck } from 'lucide-react';
import { useEffect, useState, type RefObject } from 'react';
import { pendingCards, type CardPart, type ChatMessage } from './types';
import { callTitle } from '@/lib/present/describe';

const SUGGESTIONS = ['delete record rec-42', "what's the weather?", 'refund order ord-1042 for 250', 'look up customer cus-1'];

/**
 * Cards waiting for the viewer (`data-awaiting-you`) that are scrolled out of the message list's
 * view, watched with an IntersectionObserver on the scroller.
 * @returns how many, the first of them, and whether it lies above the visible part
 */
export function useOutOfViewCards(scroller: RefObject<HTMLDivElement | null>, messages: ChatMessage[]) {
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
export function PendingReminder({ count, first, above }: { count: number; first: string | null; above: boolean }) {
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

/** Said under the messages while the viewer's run waits for a reviewer (a call the viewer may not decide). */
export function ReviewerWait({ card }: { card: CardPart }) {
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

/** A new chat: what the agent can do, and a few requests to start with (SUGGESTIONS; a pick is sent at once). */
export function EmptyChat({ onPick }: { onPick: (text: string) => void }) {
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
