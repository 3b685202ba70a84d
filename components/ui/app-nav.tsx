'use client';

import { Inbox, MessageSquare, ScrollText, SlidersHorizontal, Users, Webhook, type LucideIcon } from 'lucide-react';
import Link from 'next/link';
import { AccountMenu, type Viewer } from './account-menu';
import { Button } from './button';
import { cn } from './cn';
import { WaitingBadge } from '@/components/inbox/waiting-badge';

type Section = 'chat' | 'inbox' | 'audit' | 'policies' | 'users' | 'webhooks' | 'account';

const LINKS: { section: Section; href: string; label: string; icon: LucideIcon; roles: Viewer['role'][] }[] = [
  { section: 'chat', href: '/', label: 'Chat', icon: MessageSquare, roles: ['user', 'reviewer', 'admin'] },
  { section: 'inbox', href: '/inbox', label: 'Inbox', icon: Inbox, roles: ['reviewer', 'admin'] },
  { section: 'audit', href: '/audit', label: 'Audit', icon: ScrollText, roles: ['admin'] },
  { section: 'policies', href: '/admin/policies', label: 'Policies', icon: SlidersHorizontal, roles: ['admin'] },
  { section: 'users', href: '/admin/users', label: 'Users', icon: Users, roles: ['admin'] },
  { section: 'webhooks', href: '/admin/webhooks', label: 'Webhooks', icon: Webhook, roles: ['admin'] },
];

/**
 * The links to every section the viewer's role may open (Chat; Inbox for reviewers and admins;
 * Audit, Policies, Users and Webhooks for admins), then the account link (the person's password and
 * API keys) and Sign out — the same on every signed-in page. Below 640 px the links show their icon
 * only (below 1024 px for an admin's longer list); their name stays the accessible label.
 *
 * @param current the section of the page (`account` for the password and API key pages); on the
 *   chat page its own link is left out, because "Chat" would start a new one (the sidebar offers
 *   New chat)
 */
export function AppNav({ viewer, current }: { viewer: Viewer; current?: Section }) {
  const links = LINKS.filter((link) => link.roles.includes(viewer.role) && !(current === 'chat' && link.section === 'chat'));
  // An admin's five or six links show their names from 1024 px (below, the page title needs the
  // room); a user's or reviewer's one or two from 640 px.
  const many = links.length > 3;
  return (
    <div className="flex shrink-0 items-center gap-1">
      {links.length > 0 ? (
        <nav aria-label="Sections">
          <ul className="flex items-center gap-0.5">
            {links.map(({ section, href, label, icon: Icon }) => (
              <li key={section}>
                <Button asChild variant="ghost" size="sm" className={cn('px-1.5 text-muted-foreground hover:text-foreground aria-[current=page]:bg-muted aria-[current=page]:text-foreground', many ? 'lg:px-3' : 'sm:px-3')}>
                  <Link href={href} data-testid={`nav-${section}`} aria-current={current === section ? 'page' : undefined} prefetch={false} title={label}>
                    <Icon aria-hidden />
                    <span className={many ? 'sr-only lg:not-sr-only' : 'sr-only sm:not-sr-only'}>{label}</span>
                    {section === 'inbox' ? <WaitingBadge /> : null}
                  </Link>
                </Button>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div className="ml-1 border-l border-border pl-1 sm:ml-2 sm:pl-2">
        <AccountMenu viewer={viewer} current={current === 'account'} />
      </div>
    </div>
  );
}
