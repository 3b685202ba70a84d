import { MessageSquare } from 'lucide-react';
import Link from 'next/link';
import { cn } from '@/components/ui/cn';

export interface ThreadSummary {
  id: string;
  title: string;
  updatedAt: string;
}

/** The viewer's threads, newest first; the open one is marked as the current page. */
export function ThreadList({ threads, activeId, onNavigate }: { threads: ThreadSummary[]; activeId: string; onNavigate?: () => void }) {
  if (threads.length === 0) {
    return <p className="px-3 py-2 text-sm text-muted-foreground">No chats yet. Your conversations will show up here.</p>;
  }
  return (
    <ul className="flex flex-col gap-0.5">
      {threads.map((thread) => {
        const active = thread.id === activeId;
        return (
          <li key={thread.id}>
            <Link
              href={`/chat/${thread.id}`}
              data-testid="thread-link"
              aria-current={active ? 'page' : undefined}
              onClick={onNavigate}
              className={cn(
                'flex items-center gap-2 rounded-md px-3 py-2 text-sm text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                active && 'bg-muted font-medium text-foreground',
              )}
            >
              <MessageSquare className="size-4 shrink-0" aria-hidden />
              <span className="truncate">{thread.title || 'Untitled chat'}</span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
