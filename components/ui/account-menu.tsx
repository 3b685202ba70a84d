'use client';

import { LogOut } from 'lucide-react';
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

/** Who is signed in (from 768 px up), and Sign out (an icon button with its name below 640 px). */
export function AccountMenu({ viewer }: { viewer: Viewer }) {
  const router = useRouter();
  const [leaving, setLeaving] = useState(false);
  return (
    <div className="flex items-center gap-2 text-xs text-muted-foreground">
      <span data-testid="signed-in-as" className="hidden whitespace-nowrap md:inline">
        Signed in as <span className="font-medium text-foreground">{viewer.name}</span> · {ROLE_LABEL[viewer.role]}
      </span>
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
