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

/** A stand-in origin: a path is same-site when resolving it against this origin keeps the origin. */
const HERE = 'http://countersign.invalid';

/**
 * The same-site path and query in `next`, for a redirect after signing in, or `/`. Resolved as a
 * browser resolves a link on this site (WHATWG URL): `//evil.test`, `/\evil.test` and a path with a
 * tab or line break inside the slashes all name another site there and are refused, as is anything
 * not starting with `/`. The open-redirect rule of OWASP's "Unvalidated Redirects and Forwards".
 *
 * @param next what the request asked to return to (e.g. `/inbox?view=done`); a query parameter given
 *   twice arrives as a list, of which the first counts
 * @returns the normalised path, query and fragment, or `/`
 */
export function safeNextPath(next: string | string[] | null | undefined): string {
  if (Array.isArray(next)) next = next[0];
  if (typeof next !== 'string' || !next.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return '/';
  }
  return url.origin === HERE ? `${url.pathname}${url.search}${url.hash}` : '/';
}

/**
 * Where a visitor who is not signed in is sent: `/sign-in?next=<the page they asked for>`, with
 * `next` made safe by `safeNextPath` (anything but a same-site path returns to `/`).
 */
export function signInHref(next: string | null | undefined): string {
  return `/sign-in?next=${encodeURIComponent(safeNextPath(next))}`;
}
