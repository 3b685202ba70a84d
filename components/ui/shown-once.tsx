'use client';

import { Check, Copy } from 'lucide-react';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/textarea';

/**
 * A secret the server shows exactly once (a new API key, a webhook signing secret, a temporary
 * password): a heading, what to do with it, the value in a read-only field that selects itself,
 * Copy, and Done. Scrolled into view and focused when it appears.
 *
 * @param props.title the heading
 * @param props.children the sentence under it (that it is shown only now, and what to do with it)
 * @param props.noun what the value is, lower case ("key", "secret", "password"): the field's label
 *   and the Copy messages use it
 * @param props.label the field's (visually hidden) label
 * @param props.markCopied show "Copied" on the button after copying, besides the toast
 * @param props.testIds data-testid of the panel, the field and (optional) the Done button
 */
export function ShownOnce(props: {
  title: string;
  children: ReactNode;
  value: string;
  noun: string;
  label: string;
  markCopied?: boolean;
  onDone: () => void;
  testIds: { panel: string; value: string; done?: string };
}) {
  const id = useId();
  const panel = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState(false);
  // The panel may appear far from the button that asked for it (a reset in a long list): bring it
  // into view and move focus to it, so the secret is seen and screen readers read it.
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
    panel.current?.focus({ preventScroll: true });
  }, []);
  const shownCopied = props.markCopied && copied;
  const capitalised = props.noun.charAt(0).toUpperCase() + props.noun.slice(1);
  return (
    <section
      ref={panel}
      tabIndex={-1}
      aria-labelledby={`${id}-heading`}
      data-testid={props.testIds.panel}
      className="flex flex-col gap-2 rounded-lg border border-primary/40 bg-primary/5 p-4 outline-none"
    >
      <h2 id={`${id}-heading`} className="text-sm font-semibold break-words">
        {props.title}
      </h2>
      <p className="text-sm text-muted-foreground">{props.children}</p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor={`${id}-value`} className="sr-only">
          {props.label}
        </label>
        <Input
          id={`${id}-value`}
          readOnly
          value={props.value}
          data-testid={props.testIds.value}
          className="font-mono text-xs"
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button
          size="sm"
          variant="outline"
          className="h-9"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(props.value);
              setCopied(true);
              toast(`${capitalised} copied`);
            } catch {
              toast(`Copying was refused; select the ${props.noun} and copy it yourself.`);
            }
          }}
        >
          {shownCopied ? <Check aria-hidden /> : <Copy aria-hidden />} {shownCopied ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <div>
        <Button size="sm" variant="primary" onClick={props.onDone} data-testid={props.testIds.done}>
          Done
        </Button>
      </div>
    </section>
  );
}
