'use client';

import { Hourglass, LoaderCircle, MessageSquare, MoreHorizontal, Pencil, Trash2 } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { AlertDialog, AlertDialogCancel } from '@/components/ui/alert-dialog';
import type { FriendlyError } from '@/components/ui/api-error';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { revealBidi } from '@/lib/present/describe';
import { DropdownMenu, DropdownMenuItem } from '@/components/ui/dropdown-menu';
import { sendJson } from '@/components/ui/send-json';
import { Input } from '@/components/ui/textarea';
import { ShortDate } from '@/components/ui/time';

export interface ThreadSummary {
  id: string;
  title: string;
  /** ISO 8601 */
  createdAt: string;
  updatedAt: string;
  /** Calls waiting for a decision or an answer. */
  pending: number;
}

interface ThreadListProps {
  threads: ThreadSummary[];
  activeId: string;
  /** Called when a link is followed (closes the sheet on small screens). */
  onNavigate?: () => void;
}

/**
 * The viewer's threads, newest activity first: title (from the first request), last activity, a
 * marker on threads with calls waiting, and a menu to rename or delete. The open one is marked as
 * the current page.
 */
export function ThreadList({ threads, activeId, onNavigate }: ThreadListProps) {
  const router = useRouter();
  // Titles saved here show at once; the server's list catches up on refresh.
  const [renamed, setRenamed] = useState<Record<string, string>>({});
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ThreadSummary | null>(null);
  // Focus goes back to the row after renaming, and to its menu button after the delete dialog.
  const [focusRow, setFocusRow] = useState<string | null>(null);
  const menuButton = useRef<HTMLButtonElement | null>(null);

  if (threads.length === 0) {
    return <p className="px-3 py-2 text-sm text-muted-foreground">No chats yet. Your conversations will show up here.</p>;
  }
  return (
    <>
      <ul className="flex flex-col gap-0.5">
        {threads.map((thread) => {
          const title = renamed[thread.id] ?? (thread.title || 'Untitled chat');
          return (
            <li key={thread.id} data-testid="thread-item" data-thread-id={thread.id} data-pending={thread.pending}>
              {editing === thread.id ? (
                <RenameForm
                  threadId={thread.id}
                  title={title}
                  onDone={(saved) => {
                    setEditing(null);
                    setFocusRow(thread.id);
                    if (saved !== null) {
                      setRenamed((current) => ({ ...current, [thread.id]: saved }));
                      router.refresh();
                    }
                  }}
                />
              ) : (
                <ThreadRow
                  thread={thread}
                  title={title}
                  active={thread.id === activeId}
                  focus={focusRow === thread.id}
                  onFocused={() => setFocusRow(null)}
                  onNavigate={onNavigate}
                  onRename={() => setEditing(thread.id)}
                  onDelete={(button) => {
                    menuButton.current = button;
                    setDeleting(thread);
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
      <DeleteDialog
        thread={deleting}
        title={deleting ? (renamed[deleting.id] ?? deleting.title) : ''}
        onClose={() => setDeleting(null)}
        returnFocusTo={() => menuButton.current}
        onDeleted={(id) => {
          setDeleting(null);
          toast.success('Chat deleted');
          if (id === activeId) router.push('/');
          else router.refresh();
        }}
      />
    </>
  );
}

function ThreadRow({
  thread,
  title,
  active,
  focus,
  onFocused,
  onNavigate,
  onRename,
  onDelete,
}: {
  thread: ThreadSummary;
  title: string;
  active: boolean;
  /** Take focus (after the title editor closed). */
  focus: boolean;
  onFocused: () => void;
  onNavigate?: () => void;
  onRename: () => void;
  onDelete: (menuButton: HTMLButtonElement | null) => void;
}) {
  const linkRef = useRef<HTMLAnchorElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!focus) return;
    linkRef.current?.focus();
    onFocused();
  }, [focus, onFocused]);
  const waiting = thread.pending > 0 ? `${thread.pending} ${thread.pending === 1 ? 'action' : 'actions'} waiting` : null;
  return (
    <div
      className={cn(
        'group flex items-center rounded-md text-sm text-muted-foreground focus-within:bg-muted hover:bg-muted hover:text-foreground',
        active && 'bg-muted text-foreground',
      )}
    >
      <Link
        ref={linkRef}
        href={`/chat/${encodeURIComponent(thread.id)}`}
        data-testid="thread-link"
        aria-current={active ? 'page' : undefined}
        onClick={onNavigate}
        className="flex min-w-0 flex-1 items-center gap-2 rounded-md py-2 pr-1 pl-3 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
      >
        <MessageSquare className="size-4 shrink-0" aria-hidden />
        <span className="flex min-w-0 flex-1 flex-col">
          <span data-testid="thread-title" className={cn('truncate', active && 'font-medium')}>
            <bdi>{revealBidi(title)}</bdi>
          </span>
          <span className="flex items-center gap-1.5 text-xs text-muted-foreground">
            <ShortDate iso={thread.updatedAt} />
            {waiting ? (
              <span data-testid="thread-pending" className="inline-flex items-center gap-0.5 font-medium text-primary">
                <Hourglass className="size-3" aria-hidden />
                {waiting}
              </span>
            ) : null}
          </span>
        </span>
      </Link>
      <DropdownMenu
        trigger={
          <Button ref={buttonRef} variant="ghost" size="icon-sm" className="mr-1 shrink-0" aria-label={`Actions for “${revealBidi(title)}”`} data-testid="thread-actions">
            <MoreHorizontal aria-hidden />
          </Button>
        }
      >
        <DropdownMenuItem data-testid="thread-rename" onSelect={onRename}>
          <Pencil aria-hidden /> Rename
        </DropdownMenuItem>
        <DropdownMenuItem data-testid="thread-delete" tone="danger" onSelect={() => onDelete(buttonRef.current)}>
          <Trash2 aria-hidden /> Delete…
        </DropdownMenuItem>
      </DropdownMenu>
    </div>
  );
}

/** Inline title editor: Enter saves, Escape (or leaving it unchanged) cancels. */
function RenameForm({ threadId, title, onDone }: { threadId: string; title: string; onDone: (saved: string | null) => void }) {
  const [value, setValue] = useState(title);
  const [error, setError] = useState<FriendlyError | null>(null);
  const [saving, setSaving] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const errorId = useId();

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = value.replace(/\s+/g, ' ').trim();
    if (next === title) return onDone(null);
    setSaving(true);
    const outcome = await sendJson<{ thread: { title: string } }>(`/api/threads/${encodeURIComponent(threadId)}`, {
      method: 'PATCH',
      body: { title: next },
    });
    setSaving(false);
    if (!outcome.ok) {
      setError(outcome.error);
      inputRef.current?.focus();
      return;
    }
    onDone(outcome.data.thread.title);
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-1 px-1 py-1" data-testid="thread-rename-form">
      <label htmlFor={inputId} className="sr-only">
        Chat title
      </label>
      <Input
        id={inputId}
        ref={inputRef}
        value={value}
        maxLength={100}
        disabled={saving}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        data-testid="thread-title-input"
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            event.stopPropagation();
            onDone(null);
          }
        }}
        className="h-8"
      />
      {error ? (
        <p id={errorId} role="alert" className="px-1 text-xs text-destructive">
          {error.issues[0] ?? error.message}
        </p>
      ) : (
        <p className="px-1 text-xs text-muted-foreground">Enter saves, Esc cancels.</p>
      )}
    </form>
  );
}

function DeleteDialog({
  thread,
  title,
  onClose,
  onDeleted,
  returnFocusTo,
}: {
  thread: ThreadSummary | null;
  title: string;
  onClose: () => void;
  onDeleted: (id: string) => void;
  returnFocusTo: () => HTMLElement | null;
}) {
  const [error, setError] = useState<FriendlyError | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setError(null), [thread?.id]);

  const confirm = async () => {
    if (!thread) return;
    setBusy(true);
    const outcome = await sendJson(`/api/threads/${encodeURIComponent(thread.id)}`, { method: 'DELETE' });
    setBusy(false);
    if (outcome.ok) onDeleted(thread.id);
    else setError(outcome.error);
  };

  return (
    <AlertDialog
      open={thread !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      title={`Delete “${title}”?`}
      returnFocusTo={returnFocusTo}
      description="The chat leaves your list and cannot be opened again. Decisions made in it stay in the audit log."
      actions={
        <>
          <AlertDialogCancel asChild>
            <Button variant="outline" size="sm" disabled={busy}>
              Cancel
            </Button>
          </AlertDialogCancel>
          <Button variant="destructive" size="sm" data-testid="thread-delete-confirm" disabled={busy} onClick={() => void confirm()}>
            {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : <Trash2 aria-hidden />}
            Delete chat
          </Button>
        </>
      }
    >
      {error ? (
        <p role="alert" data-testid="thread-delete-error" data-code={error.code} className="rounded-md border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm">
          {error.message}
        </p>
      ) : null}
    </AlertDialog>
  );
}
