import 'server-only';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { Actor } from '@/lib/agent/tool';
import type { People } from '@/lib/present/describe';
import { ApiError } from '@/lib/http/errors';
import { parseCookies } from 'better-auth/cookies';
import { prisma } from '@/lib/store/db';
import { apiKeyFromHeaders, verifyApiKey } from './api-keys';
import { REQUESTED_PATH_HEADER, signInHref } from './requested-path';
import { auth } from './auth';
import { SessionCache } from './session-cache';
import { sessionsChannel } from './sessions-channel';
import { keyNeedsNoScope, scopeForPath, type Scope } from './scopes';

export type Role = Actor['role'];

/** The signed-in person, as every layer below the route handlers receives them. */
export interface SessionActor extends Actor {
  name: string;
  email: string;
  /** Set when the request was made with an API key (instead of a session): the key and its scopes. */
  apiKey?: { id: string; scopes: Scope[] };
}

const ROLES: readonly Role[] = ['user', 'reviewer', 'admin'];

/** Longest a checked session is used without reading it again, in ms (revocations arrive by NOTIFY at once; this is a safety net). */
const SESSION_CACHE_MAX_AGE_MS = 60_000;

const globalForSessions = globalThis as unknown as { countersignSessionCache?: SessionCache<SessionActor> };

/** The process-wide cache of checked sessions, dropped per person on every session or account change (session-cache.ts). */
function sessionCache(): SessionCache<SessionActor> {
  globalForSessions.countersignSessionCache ??= new SessionCache<SessionActor>(sessionsChannel(), { maxAgeMs: SESSION_CACHE_MAX_AGE_MS, maxEntries: 10_000 });
  return globalForSessions.countersignSessionCache;
}

/**
 * The actor of a request's session, or null when not signed in. better-auth checks the session
 * (signed cookie, session row, expiry, user); a session it accepted is then answered from the
 * in-process cache until it or its account changes (session-cache.ts).
 */
export async function actorFromHeaders(requestHeaders: Headers): Promise<SessionActor | null> {
  const cookieHeader = requestHeaders.get('cookie');
  const cookieName = cookieHeader ? (await auth().$context).authCookies.sessionToken.name : null;
  const signedToken = cookieHeader && cookieName ? parseCookies(cookieHeader).get(cookieName) : undefined;
  const load = async () => {
    const session = await auth().api.getSession({ headers: requestHeaders });
    if (!session) return null;
    const role = (session.user as { role?: string }).role;
    const value: SessionActor = { id: session.user.id, role: asRole(role), name: session.user.name, email: session.user.email };
    return { value, userId: session.user.id, expiresAt: new Date(session.session.expiresAt).getTime() };
  };
  if (!signedToken) return (await load())?.value ?? null;
  return sessionCache().resolve(signedToken, load);
}

const asRole = (role: string | null | undefined): Role => (ROLES.includes(role as Role) ? (role as Role) : 'user');

/**
 * The actor of a request made with an API key (`Authorization: Bearer <key>` or `x-api-key`): the
 * key's owner, exactly as their session would resolve, plus the key's scopes. The route's scope
 * (scopes.ts `scopeForPath`, by path and method) must be among them; `GET /api/me` needs none
 * (`keyNeedsNoScope`).
 *
 * @returns null when the request carries no key
 * @throws ApiError 401 API_KEY_INVALID / API_KEY_REVOKED / API_KEY_EXPIRED / ACCOUNT_DEACTIVATED,
 *   403 API_KEY_NOT_ALLOWED (a route only a session may use), 403 INSUFFICIENT_SCOPE, 429 RATE_LIMITED
 */
async function actorFromApiKey(request: Request): Promise<SessionActor | null> {
  const key = apiKeyFromHeaders(request.headers);
  if (!key) return null;
  const identity = await verifyApiKey(key, request.headers);
  const { pathname } = new URL(request.url);
  const scope = scopeForPath(pathname, request.method);
  if (!scope && !keyNeedsNoScope(pathname, request.method)) throw new ApiError(403, 'API_KEY_NOT_ALLOWED', 'This route needs a signed-in session; API keys cannot use it.');
  const actor: SessionActor = {
    id: identity.user.id,
    role: asRole(identity.user.role),
    name: identity.user.name,
    email: identity.user.email,
    apiKey: { id: identity.keyId, scopes: identity.scopes },
  };
  if (scope) requireScope(actor, scope);
  return actor;
}

/**
 * Checks that a key-authenticated actor's key has `scope` (a session has every scope its role allows).
 * @throws ApiError 403 INSUFFICIENT_SCOPE
 */
export function requireScope(actor: SessionActor, scope: Scope): void {
  if (actor.apiKey && !actor.apiKey.scopes.includes(scope)) {
    throw new ApiError(403, 'INSUFFICIENT_SCOPE', `This API key does not have the scope ${scope}.`, { required: scope, granted: actor.apiKey.scopes });
  }
}

/**
 * Checks that a request is signed in (a valid API key, or a session), without any route's scope or
 * role: for answers that hold for every path, such as the API's 404 for a path that does not exist
 * (a key would otherwise be told 403 API_KEY_NOT_ALLOWED, as if the route existed).
 * @throws ApiError 401 UNAUTHENTICATED (neither), and verifyApiKey's 401 API_KEY_INVALID /
 *   API_KEY_REVOKED / API_KEY_EXPIRED / ACCOUNT_DEACTIVATED and 429 RATE_LIMITED
 */
export async function requireSignedIn(request: Request): Promise<void> {
  const key = apiKeyFromHeaders(request.headers);
  if (key) {
    await verifyApiKey(key, request.headers);
    return;
  }
  if (!(await actorFromHeaders(request.headers))) throw new ApiError(401, 'UNAUTHENTICATED', 'Sign in first.');
}

/**
 * The actor of an API request: from its API key when it carries one, else from its session. This is
 * the one place identity is resolved for API routes; it never comes from a request field.
 * @param roles roles allowed here (default: any signed-in person)
 * @throws ApiError 401 UNAUTHENTICATED (no session), 403 FORBIDDEN (another role), and the key
 *   errors of actorFromApiKey
 */
export async function requireActor(request: Request, roles: readonly Role[] = ROLES): Promise<SessionActor> {
  const actor = (await actorFromApiKey(request)) ?? (await actorFromHeaders(request.headers));
  if (!actor) throw new ApiError(401, 'UNAUTHENTICATED', 'Sign in first.');
  if (!roles.includes(actor.role)) throw new ApiError(403, 'FORBIDDEN', 'Your role may not do this.');
  return actor;
}

/**
 * The actor of a page request; sends people who are not signed in to /sign-in, to return to the
 * path and query they asked for (the header proxy.ts sets on every page request; `/` without it),
 * and shows people of another role the "not allowed" page.
 */
export async function requirePageActor(roles: readonly Role[] = ROLES): Promise<SessionActor> {
  const requestHeaders = await headers();
  const actor = await actorFromHeaders(requestHeaders);
  if (!actor) redirect(signInHref(requestHeaders.get(REQUESTED_PATH_HEADER)));
  if (!roles.includes(actor.role)) redirect('/forbidden');
  return actor;
}

/**
 * Display names and emails of the given user ids (an unknown id maps to itself, without email).
 * @returns `{ [id]: { name, email } }`
 */
export async function displayNames(ids: Iterable<string>): Promise<People> {
  const unique = [...new Set(ids)];
  const users = await prisma().user.findMany({ where: { id: { in: unique } }, select: { id: true, name: true, email: true } });
  const people: People = Object.fromEntries(unique.map((id) => [id, { name: id, email: null }]));
  for (const user of users) people[user.id] = { name: user.name, email: user.email };
  return people;
}
