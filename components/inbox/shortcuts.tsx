'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { Keyboard, X } from 'lucide-react';
import { useModifierKeyLabel } from '@/components/ui/modifier-key';

/**
 * Every keyboard shortcut of the inbox, as the `?` sheet lists them (the view's key handler follows
 * this list). `Ctrl` is shown as ⌘ on Apple platforms, where the handlers accept either.
 */
export const INBOX_SHORTCUTS: { group: string; keys: string[]; action: string }[] = [
  { group: 'Move', keys: ['j', '↓'], action: 'Next call' },
  { group: 'Move', keys: ['k', '↑'], action: 'Previous call' },
  { group: 'Move', keys: ['1', '2', '3', '4'], action: 'Queue: For me, Unassigned, All, My requests' },
  { group: 'Move', keys: ['/'], action: 'Search' },
  { group: 'Decide', keys: ['a'], action: 'Approve the open call' },
  { group: 'Decide', keys: ['d'], action: 'Decline the open call (asks for a reason)' },
  { group: 'Decide', keys: ['Ctrl', 'Enter'], action: 'Send the decline, from its reason' },
  { group: 'Decide', keys: ['e'], action: 'Approve with edits' },
  { group: 'Decide', keys: ['w'], action: 'Withdraw your own request' },
  { group: 'Select', keys: ['x'], action: 'Select or unselect the open call' },
  { group: 'Select', keys: ['Shift', 'x'], action: 'Select the range from the last one' },
  { group: 'Select', keys: ['Esc'], action: 'Close a form, or clear the selection' },
  { group: 'Assign', keys: ['c'], action: 'Assign the open call to me' },
  { group: 'Assign', keys: ['u'], action: 'Release the open call' },
  { group: 'Help', keys: ['?'], action: 'Show these shortcuts' },
];

/** The `?` sheet: every inbox shortcut, in a labelled dialog (Radix: focus trap, Esc closes, focus returns). */
export function ShortcutsDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const groups = [...new Set(INBOX_SHORTCUTS.map((shortcut) => shortcut.group))];
  const modifierKey = useModifierKeyLabel();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>
        <button
          type="button"
          data-testid="shortcuts-open"
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts ( ? )"
          // Not on phone widths: there is no keyboard there, and the header needs the room.
          className="hidden rounded-md p-1.5 text-muted-foreground sm:inline-block hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
        >
          <Keyboard className="size-4" aria-hidden />
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          // On close the sheet hands focus back to its button, unless a key pressed meanwhile (j,
          // an arrow) already moved it to a row: that focus stays where the key put it.
          onCloseAutoFocus={(event) => {
            const active = document.activeElement;
            if (active instanceof HTMLElement && active !== document.body && active.isConnected && !active.closest('[data-testid="shortcuts-sheet"]')) {
              event.preventDefault();
            }
          }}
          data-testid="shortcuts-sheet"
          className="fixed top-1/2 left-1/2 z-50 flex max-h-[85dvh] w-[min(28rem,92vw)] -translate-x-1/2 -translate-y-1/2 flex-col rounded-lg border border-border bg-background shadow-lg focus:outline-none"
        >
          <div className="flex h-12 items-center justify-between border-b border-border px-4">
            <Dialog.Title className="text-sm font-semibold">Keyboard shortcuts</Dialog.Title>
            <Dialog.Close className="rounded-md p-1.5 hover:bg-muted focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none" aria-label="Close">
              <X className="size-4" aria-hidden />
            </Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">Every action of the inbox and its key.</Dialog.Description>
          <div className="min-h-0 flex-1 overflow-y-auto p-4">
            {groups.map((group) => (
              <section key={group} className="mb-3">
                <h3 className="mb-1 text-xs font-medium tracking-wide text-muted-foreground uppercase">{group}</h3>
                <dl className="flex flex-col gap-1 text-sm">
                  {INBOX_SHORTCUTS.filter((shortcut) => shortcut.group === group).map((shortcut) => (
                    <div key={shortcut.action} className="flex items-center justify-between gap-4">
                      <dt>{shortcut.action}</dt>
                      <dd className="flex shrink-0 gap-1">
                        {shortcut.keys.map((key) => (
                          <kbd key={key} className="rounded border border-border bg-muted px-1.5 py-0.5 font-mono text-xs">
                            {key === 'Ctrl' ? modifierKey : key}
                          </kbd>
                        ))}
                      </dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
