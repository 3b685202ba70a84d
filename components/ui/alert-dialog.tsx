'use client';

import * as Alert from '@radix-ui/react-alert-dialog';
import type { ReactNode } from 'react';

/**
 * A confirmation dialog (Radix AlertDialog: focus trapped, Esc cancels, focus returns to the
 * control that opened it). `actions` holds the buttons; wrap the cancel one in `AlertDialogCancel`.
 */
export function AlertDialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  actions,
  returnFocusTo,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  children?: ReactNode;
  actions: ReactNode;
  /** Where focus goes when the dialog closes, when it was not opened by a Radix trigger (e.g. from a menu). */
  returnFocusTo?: () => HTMLElement | null | undefined;
}) {
  return (
    <Alert.Root open={open} onOpenChange={onOpenChange}>
      <Alert.Portal>
        <Alert.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Alert.Content
          onCloseAutoFocus={(event) => {
            const target = returnFocusTo?.();
            if (target?.isConnected) {
              event.preventDefault();
              target.focus();
            }
          }}
          className="fixed top-1/2 left-1/2 z-50 flex w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-3 rounded-lg border border-border bg-card p-5 text-foreground shadow-lg focus:outline-none">
          <Alert.Title className="text-base font-semibold break-words">{title}</Alert.Title>
          <Alert.Description className="text-sm text-muted-foreground">{description}</Alert.Description>
          {children}
          <div className="flex flex-wrap justify-end gap-2">{actions}</div>
        </Alert.Content>
      </Alert.Portal>
    </Alert.Root>
  );
}

export const AlertDialogCancel = Alert.Cancel;
