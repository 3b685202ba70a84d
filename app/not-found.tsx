import Link from 'next/link';
import { SiteHeader } from '@/components/ui/site-header';

export default function NotFound() {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      <main data-testid="not-found" className="flex flex-1 flex-col items-center justify-center gap-3 p-4 text-center">
        <h1 className="text-lg font-semibold">Not found</h1>
        <p className="max-w-sm text-sm text-muted-foreground">This page does not exist, or it is not yours.</p>
        <Link href="/" className="text-sm font-medium text-primary underline-offset-4 hover:underline">
          Back to your chats
        </Link>
      </main>
    </div>
  );
}
