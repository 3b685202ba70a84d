'use client';

import * as Menu from '@radix-ui/react-dropdown-menu';
import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

/** A menu opened by `trigger` (Radix DropdownMenu: arrow keys, typeahead, Esc, focus return). */
export function DropdownMenu({ trigger, children, align = 'end' }: { trigger: ReactNode; children: ReactNode; align?: 'start' | 'end' }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>{trigger}</Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align={align}
          sideOffset={4}
          className="z-50 min-w-36 rounded-md border border-border bg-card p-1 text-sm text-foreground shadow-md"
        >
          {children}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}

/** One entry of a DropdownMenu; `tone="danger"` for destructive actions. */
export function DropdownMenuItem({ className, tone, ...props }: ComponentProps<typeof Menu.Item> & { tone?: 'danger' }) {
  return (
    <Menu.Item
      className={cn(
        'flex cursor-default items-center gap-2 rounded px-2 py-1.5 outline-none select-none data-[highlighted]:bg-muted [&_svg]:size-4',
        tone === 'danger' && 'text-destructive',
        className,
      )}
      {...props}
    />
  );
}
