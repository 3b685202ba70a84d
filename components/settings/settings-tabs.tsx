import Link from 'next/link';
import { Button } from '@/components/ui/button';

/** The account pages, reached from the account link in every page's header: the password and the API keys. */
export function SettingsTabs({ current }: { current: 'password' | 'keys' }) {
  const tabs = [
    { id: 'password', href: '/settings/password', label: 'Password' },
    { id: 'keys', href: '/settings/keys', label: 'API keys' },
  ] as const;
  return (
    <nav aria-label="Account settings" className="flex gap-1">
      {tabs.map((tab) => (
        <Button key={tab.id} asChild variant="ghost" size="sm" className="aria-[current=page]:bg-muted aria-[current=page]:text-foreground">
          <Link href={tab.href} aria-current={current === tab.id ? 'page' : undefined} data-testid={`settings-tab-${tab.id}`}>
            {tab.label}
          </Link>
        </Button>
      ))}
    </nav>
  );
}
