'use client';

import { ArrowUp, Square } from 'lucide-react';
import { useId, useRef, useState, type ClipboardEvent, type InputEvent, type KeyboardEvent } from 'react';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { Textarea } from '@/components/ui/textarea';
import { MAX_MESSAGE_CHARS } from '@/lib/chat/limits';

/** From this length on the composer shows how much of the limit is used. */
const COUNT_FROM = MAX_MESSAGE_CHARS * 0.9;
const number = new Intl.NumberFormat('en');

export interface ComposerProps {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  /** A turn is streaming: sending waits, Stop is offered. */
  busy: boolean;
}

/**
 * The message box: Enter sends, Shift+Enter adds a line; while a turn streams, Send waits and Stop
 * shows. Near the length limit (MAX_MESSAGE_CHARS) a count appears, and at the limit it says that
 * longer text (a long paste) was cut, since the box itself stops there without a word.
 */
export function Composer({ value, onChange, onSend, onStop, busy }: ComposerProps) {
  const inputId = useId();
  const hintId = useId();
  const countId = useId();
  // The last paste or typed text did not fit: the box kept what did, without a word (e.g. an emoji past the limit).
  const [cut, setCut] = useState(false);
  // Any shrink of the text (deleting, or the chat clearing it after a send) ends the cut's notice;
  // adjusted while rendering, as React recommends for state that follows a prop.
  const [lastValue, setLastValue] = useState(value);
  if (value !== lastValue) {
    setLastValue(value);
    if (value.length < lastValue.length && cut) setCut(false);
  }
  const showCount = value.length >= COUNT_FROM;
  const atLimit = value.length >= MAX_MESSAGE_CHARS || (cut && showCount);
  const formRef = useRef<HTMLFormElement>(null);
  const hydrated = useHydrated();
  const canSend = value.trim().length > 0 && !busy && hydrated;

  /** Characters the box still takes where the caret is (a selection is replaced). */
  const roomIn = (box: HTMLTextAreaElement) => MAX_MESSAGE_CHARS - (box.value.length - (box.selectionEnd - box.selectionStart));
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    setCut(event.clipboardData.getData('text').length > roomIn(event.currentTarget));
  };
  // Typed text that does not fit (an emoji, two UTF-16 units, one short of the limit) is dropped by
  // the box as silently as a long paste: say so too.
  const onBeforeInput = (event: InputEvent<HTMLTextAreaElement>) => {
    if (event.data && event.data.length > roomIn(event.currentTarget)) setCut(true);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (canSend) formRef.current?.requestSubmit();
    }
  };

  return (
    <>
      <form
        ref={formRef}
        onSubmit={(event) => {
          event.preventDefault();
          if (canSend) onSend();
        }}
        className="flex items-end gap-2 rounded-xl border border-input bg-background p-2 shadow-sm focus-within:ring-2 focus-within:ring-ring"
      >
        <label htmlFor={inputId} className="sr-only">
          Message
        </label>
        <Textarea
          id={inputId}
          data-testid="composer-input"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onPaste={onPaste}
          onBeforeInput={onBeforeInput}
          onKeyDown={onKeyDown}
          placeholder="Message the agent…"
          rows={1}
          maxLength={MAX_MESSAGE_CHARS}
          // Typing before hydration would be lost: the box accepts text once it can keep it.
          readOnly={!hydrated}
          aria-describedby={showCount ? `${hintId} ${countId}` : hintId}
          className="max-h-48 min-h-9 flex-1 resize-none border-0 bg-transparent px-2 py-1.5 shadow-none [field-sizing:content] focus-visible:ring-0"
        />
        <span id={hintId} className="sr-only">
          Enter sends, Shift+Enter adds a new line.
        </span>
        {busy ? (
          <Button variant="outline" size="icon" aria-label="Stop" data-testid="composer-stop" onClick={onStop}>
            <Square className="fill-current" aria-hidden />
          </Button>
        ) : null}
        <Button type="submit" variant="primary" size="icon" aria-label="Send" data-testid="composer-send" disabled={!canSend}>
          <ArrowUp aria-hidden />
        </Button>
      </form>
      {showCount ? (
        <p id={countId} data-testid="composer-count" className={atLimit ? 'text-xs text-destructive' : 'text-xs text-muted-foreground'}>
          {number.format(value.length)} of {number.format(MAX_MESSAGE_CHARS)} characters
          {/* Announced once, at the limit, not on every keystroke near it. */}
          <span role="status">{atLimit ? ': the limit. Text beyond it is not kept; send the rest in another message.' : ''}</span>
        </p>
      ) : null}
    </>
  );
}
