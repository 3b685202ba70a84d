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

/** Who is signed in, and Sign out. */
export function AccountMenu({ viewer, compact = false }: { viewer: Viewer; compact?: boolean }) {
  const router = useRouter();
  const [leaving, setLeaving] = useState(false);
  return (
    <div className="flex items-center gap-2 text-xs text-muted-foreground">
      {compact ? null : (
        <span data-testid="signed-in-as">
          Signed in as <span className="font-medium text-foreground">{viewer.name}</span> · {ROLE_LABEL[viewer.role]}
        </span>
      )}
      <Button
        variant="ghost"
        size="sm"
        data-testid="sign-out"
        disabled={leaving}
        onClick={async () => {
          setLeaving(true);
          await authClient.signOut();
          router.push('/sign-in');
          router.refresh();
        }}
      >
        <LogOut aria-hidden /> Sign out
      </Button>
    </div>
  );
}
