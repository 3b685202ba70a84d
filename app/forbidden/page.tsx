import type { Metadata } from 'next';
import Link from 'next/link';
import { SiteHeader } from '@/components/ui/site-header';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Not allowed' };

export default function ForbiddenPage() {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      <main className="flex flex-1 flex-col items-center justify-center gap-3 p-4 text-center">
        <h1 className="text-lg font-semibold">This page is not for your role</h1>
        <p className="max-w-sm text-sm text-muted-foreground">The inbox is for reviewers and admins; the audit log is for admins.</p>
        <Link href="/" className="text-sm font-medium text-primary underline-offset-4 hover:underline">
          Back to your chats
        </Link>
      </main>
    </div>
  );
}
