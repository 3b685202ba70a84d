import Link from 'next/link';
import { Button } from '@/components/ui/button';

/** The audit section's two views: decisions and administrative actions. */
export function AuditTabs({ current }: { current: 'decisions' | 'actions' }) {
  const tabs = [
    { id: 'decisions', href: '/audit', label: 'Decisions' },
    { id: 'actions', href: '/audit/actions', label: 'Admin actions' },
  ] as const;
  return (
    <nav aria-label="Audit views" className="flex gap-1">
      {tabs.map((tab) => (
        <Button key={tab.id} asChild variant="ghost" size="sm" className="aria-[current=page]:bg-muted aria-[current=page]:text-foreground">
          <Link href={tab.href} aria-current={current === tab.id ? 'page' : undefined} data-testid={`audit-tab-${tab.id}`}>
            {tab.label}
          </Link>
        </Button>
      ))}
    </nav>
  );
}
