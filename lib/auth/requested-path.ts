/**
 * The path and query a page request asked for, carried from proxy.ts to the pages in a request
 * header, so a visitor sent to sign in first comes back to the page they opened (`next` of
 * /sign-in). A server component cannot read the URL itself: a layout gets its params, not the path
 * or the query. Pure, with no server imports: proxy.ts and lib/auth/session.ts share it.
 */

/** The request header proxy.ts sets on every page request (a client's header of that name is replaced). */
export const REQUESTED_PATH_HEADER = 'x-countersign-requested-path';

/** The path and query of `url` (`/inbox?view=done`), without its origin or fragment. */
export function requestedPath(url: URL): string {
  return `${url.pathname}${url.search}`;
}

/**
 * Where a visitor who is not signed in is sent: `/sign-in?next=<the page they asked for>`. Only a
 * same-site path is kept (one `/` first, not `//` nor `/\`, which browsers read as another site);
 * anything else, or none, returns to `/`.
 */
export function signInHref(next: string | null | undefined): string {
  const path = next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
  return `/sign-in?next=${encodeURIComponent(path)}`;
}
