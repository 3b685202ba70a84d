'use client';

import { useEffect, useRef } from 'react';
import { canDecide, type InboxAction, type InboxItem } from './types';
import type { Viewer } from '@/components/ui/account-menu';

/** What the inbox's keys act on, and how (InboxView passes its current state and actions). */
export interface InboxKeyTargets {
  /** The rows shown, in order (j/k move through them). */
  visible: InboxItem[];
  /** The open call, if any. */
  selected: InboxItem | null;
  /** The open call was decided elsewhere while shown: it takes no action keys. */
  selectedStale: boolean;
  viewer: Viewer;
  /** The `?` sheet is open: its dialog has the keys. */
  sheetOpen: boolean;
  /** The queue keys 1–4 apply (the waiting list has queues; the other lists do not). */
  queueKeys: boolean;
  /** Rows are ticked for a bulk decision (Esc clears them). */
  ticked: boolean;
  select: (id: string, focus: boolean) => void;
  openSheet: () => void;
  /** The queue tab at `index` (0–3, QUEUE_TABS). */
  openQueue: (index: number) => void;
  clearTicks: () => void;
  /** Ticks or unticks a row; `range` ticks from the last ticked row (Shift). */
  toggleTick: (item: InboxItem, range: boolean) => void;
  assign: (item: InboxItem, assignee: string | null) => void;
  act: (item: InboxItem, action: InboxAction) => void;
  openForm: (id: string, mode: 'decline' | 'edit') => void;
  focusSearch: () => void;
}

/** Whether a key goes into a field the person types in (a checkbox takes no text: the keys stay on). */
function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.tagName === 'INPUT' && ['checkbox', 'radio', 'button'].includes((el as HTMLInputElement).type)) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/**
 * Keyboard triage for the inbox: every key of INBOX_SHORTCUTS (./shortcuts.tsx, the `?` sheet)
 * — j/k or the arrows move, 1–4 switch queue, / searches, a approves, d declines, e edits, w
 * withdraws one's own request, x (Shift+x: a range) ticks, Esc clears the ticks, c claims, u
 * releases, ? shows the sheet. Keys with Ctrl, ⌘ or Alt, and keys typed into a field, are left alone.
 *
 * @param targets the view's current state and actions; read at each key press, so the listener
 *   is registered once
 */
export function useInboxKeys(targets: InboxKeyTargets): void {
  const current = useRef(targets);
  current.current = targets;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const t = current.current;
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target) || t.sheetOpen) return;
      const { visible, selected, viewer } = t;
      const index = selected ? visible.findIndex((item) => item.id === selected.id) : -1;
      const down = event.key === 'j' || event.key === 'ArrowDown';
      if (down || event.key === 'k' || event.key === 'ArrowUp') {
        const next = visible[down ? index + 1 : Math.max(index - 1, 0)];
        if (next) {
          event.preventDefault();
          t.select(next.id, true);
        }
      } else if (event.key === '?') {
        event.preventDefault();
        t.openSheet();
      } else if (t.queueKeys && ['1', '2', '3', '4'].includes(event.key)) {
        event.preventDefault();
        t.openQueue(Number(event.key) - 1);
      } else if (event.key === 'Escape' && t.ticked) {
        t.clearTicks();
      } else if ((event.key === 'c' || event.key === 'u') && selected && selected.status === 'pending' && !t.selectedStale) {
        event.preventDefault();
        if (event.key === 'c' && canDecide(selected, viewer) && selected.assignedTo !== viewer.id) t.assign(selected, viewer.id);
        if (event.key === 'u' && selected.assignedTo) t.assign(selected, null);
      } else if (event.key === 'w' && selected && !t.selectedStale && selected.kind === 'approval' && selected.requester === viewer.id) {
        event.preventDefault();
        t.act(selected, { type: 'withdraw' });
      } else if ((event.key === 'x' || event.key === 'X') && selected && selected.kind === 'approval' && selected.status === 'pending') {
        // With Shift held a keyboard sends "X": the range from the last one.
        event.preventDefault();
        t.toggleTick(selected, event.shiftKey);
      } else if (event.key === '/') {
        event.preventDefault();
        t.focusSearch();
      } else if (selected && !t.selectedStale && selected.kind === 'approval' && canDecide(selected, viewer)) {
        if (event.key === 'a') {
          event.preventDefault();
          t.act(selected, { type: 'approve' });
        } else if (event.key === 'd') {
          event.preventDefault();
          t.openForm(selected.id, 'decline');
        } else if (event.key === 'e') {
          event.preventDefault();
          t.openForm(selected.id, 'edit');
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
