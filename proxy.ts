import { NextResponse, type NextRequest } from 'next/server';
import { REQUESTED_PATH_HEADER, requestedPath } from '@/lib/auth/requested-path';

/**
 * Runs before every page request (never the API: see `config`): tells the page which path and query
 * were asked for, in a request header (lib/auth/requested-path.ts), so a page or layout that sends a
 * visitor to sign in first brings them back there (requirePageActor in lib/auth/session.ts). A
 * client's own header of that name is replaced. Nothing else: no session check, no database.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, requestedPath(request.nextUrl));
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: the API (the hot /api/chat and /api/runs routes among it) and Next's own files skip it.
  matcher: ['/((?!api/|_next/).*)'],
};
