import Link from 'next/link';
import { SiteHeader } from './site-header';

/**
 * The body of a not-found page (answered with HTTP 404): what is missing, and the way back to the
 * section the link came from. The app's top bar stays, with the section links of a signed-in person.
 */
export function NotFoundView({ message, back }: { message: string; back: { href: string; label: string } }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      <main data-testid="not-found" className="flex flex-1 flex-col items-center justify-center gap-3 p-4 text-center">
        <h1 className="text-lg font-semibold">Not found</h1>
        <p className="max-w-sm text-sm text-muted-foreground">{message}</p>
        <Link href={back.href} className="rounded text-sm font-medium text-primary underline-offset-4 hover:underline focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          {back.label}
        </Link>
      </main>
    </div>
  );
}
