import Link from 'next/link';
import { cn } from '@/components/ui/cn';

/** The inbox's lists: waiting calls, calls whose outcome is unknown, and decided calls (Done). */
export function InboxLists({ current }: { current: 'pending' | 'unknown' | 'done' }) {
  const lists = [
    ['pending', 'Waiting', '/inbox'],
    ['unknown', 'Outcome unknown', '/inbox?status=unknown'],
    ['done', 'Done', '/inbox?view=done'],
  ] as const;
  return (
    <nav aria-label="Lists" className="flex rounded-md border border-border p-0.5 text-sm">
      {lists.map(([key, label, href]) => (
        <Link
          key={key}
          href={href}
          aria-current={current === key ? 'page' : undefined}
          data-testid={`inbox-list-${key}`}
          className={cn(
            'rounded px-2.5 py-1 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
            current === key ? 'bg-muted font-medium' : 'text-muted-foreground hover:text-foreground',
          )}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
