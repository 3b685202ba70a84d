import { Link2 } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { ViewTabs } from '@/components/ui/view-tabs';

const TABS = [
  { id: 'decisions', href: '/audit', label: 'Decisions' },
  { id: 'actions', href: '/audit/actions', label: 'Admin actions' },
] as const;

/**
 * The audit section's two views, decisions and administrative actions, and the download of the
 * whole hash chain (both kinds of entry, oldest first: the one export that proves nothing is missing).
 */
export function AuditTabs({ current }: { current: 'decisions' | 'actions' }) {
  return (
    <div className="flex flex-wrap items-center gap-1">
      <ViewTabs label="Audit views" tabs={TABS} current={current} testIdPrefix="audit-tab-" />
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
