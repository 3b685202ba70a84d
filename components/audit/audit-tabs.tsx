import Link from 'next/link';
import { Link2 } from 'lucide-react';
import { Button } from '@/components/ui/button';

/**
 * The audit section's two views, decisions and administrative actions, and the download of the
 * whole hash chain (both kinds of entry, oldest first: the one export that proves nothing is missing).
 */
export function AuditTabs({ current }: { current: 'decisions' | 'actions' }) {
  const tabs = [
    { id: 'decisions', href: '/audit', label: 'Decisions' },
    { id: 'actions', href: '/audit/actions', label: 'Admin actions' },
  ] as const;
  return (
    <div className="flex flex-wrap items-center gap-1">
      <nav aria-label="Audit views" className="flex gap-1">
        {tabs.map((tab) => (
          <Button key={tab.id} asChild variant="ghost" size="sm" className="aria-[current=page]:bg-muted aria-[current=page]:text-foreground">
            <Link href={tab.href} aria-current={current === tab.id ? 'page' : undefined} data-testid={`audit-tab-${tab.id}`}>
              {tab.label}
            </Link>
          </Button>
        ))}
      </nav>
      <Button asChild variant="link" size="sm" className="ml-auto">
        <a
          href="/api/audit/chain"
          download
          data-testid="audit-chain"
          title="Every decision and admin action with its hash chain link, oldest first: check it offline with npm run audit:verify -- --file"
        >
          <Link2 aria-hidden /> Whole chain<span className="sr-only"> (JSON Lines, every entry with its hash chain link)</span>
        </a>
      </Button>
    </div>
  );
}
