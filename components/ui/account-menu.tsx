'use client';

import { LogOut, UserRound } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from './button';
import { authClient } from '@/lib/auth/client';

export interface Viewer {
  id: string;
  name: string;
  role: 'user' | 'reviewer' | 'admin';
}

const ROLE_LABEL: Record<Viewer['role'], string> = { user: 'User', reviewer: 'Reviewer', admin: 'Admin' };

/**
 * Who is signed in (from 1280 px up; an account icon below, where an admin's links need the room),
 * as a link to their account pages (/settings/password, beside /settings/keys), and Sign out (an
 * icon button with its name below 640 px).
 *
 * @param current true on the account pages (the link is marked as the current page)
 */
export function AccountMenu({ viewer, current = false }: { viewer: Viewer; current?: boolean }) {
  const router = useRouter();
  const [leaving, setLeaving] = useState(false);
  return (
    <div className="flex items-center gap-2 text-xs text-muted-foreground">
      <Button asChild variant="ghost" size="sm" className="px-1.5 font-normal text-muted-foreground hover:text-foreground aria-[current=page]:bg-muted xl:px-2">
        <Link href="/settings/password" data-testid="nav-account" aria-current={current ? 'page' : undefined} prefetch={false} title="Your account and password">
          <UserRound className="xl:hidden" aria-hidden />
          <span className="sr-only xl:hidden">Your account</span>
          <span data-testid="signed-in-as" className="hidden whitespace-nowrap xl:inline">
            Signed in as <span className="font-medium text-foreground">{viewer.name}</span> · {ROLE_LABEL[viewer.role]}
          </span>
        </Link>
      </Button>
      <Button
        variant="ghost"
        size="sm"
        className="px-2 sm:px-3"
        data-testid="sign-out"
        disabled={leaving}
        title={`Sign out ${viewer.name}`}
        onClick={async () => {
          setLeaving(true);
          await authClient.signOut();
          router.push('/sign-in');
          router.refresh();
        }}
      >
        <LogOut aria-hidden />
        <span className="sr-only sm:not-sr-only">Sign out</span>
      </Button>
    </div>
  );
}
