import 'server-only';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { Actor } from '@/lib/agent/tool';
import type { People } from '@/components/ui/describe';
import { ApiError } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';
import { auth } from './auth';

export type Role = Actor['role'];

/** The signed-in person, as every layer below the route handlers receives them. */
export interface SessionActor extends Actor {
  name: string;
  email: string;
}

const ROLES: readonly Role[] = ['user', 'reviewer', 'admin'];

/** The actor of a request's session, or null when not signed in. */
export async function actorFromHeaders(requestHeaders: Headers): Promise<SessionActor | null> {
  const session = await auth().api.getSession({ headers: requestHeaders });
  if (!session) return null;
  const role = (session.user as { role?: string }).role;
  return {
    id: session.user.id,
    role: ROLES.includes(role as Role) ? (role as Role) : 'user',
    name: session.user.name,
    email: session.user.email,
  };
}

/**
 * The actor of an API request.
 * @param roles roles allowed here (default: any signed-in person)
 * @throws ApiError 401 UNAUTHENTICATED (no session), 403 FORBIDDEN (another role)
 */
export async function requireActor(request: Request, roles: readonly Role[] = ROLES): Promise<SessionActor> {
  const actor = await actorFromHeaders(request.headers);
  if (!actor) throw new ApiError(401, 'UNAUTHENTICATED', 'Sign in first.');
  if (!roles.includes(actor.role)) throw new ApiError(403, 'FORBIDDEN', 'Your role may not do this.');
  return actor;
}

/**
 * The actor of a page request; sends people who are not signed in to /sign-in and shows
 * people of another role the "not allowed" page.
 */
export async function requirePageActor(roles: readonly Role[] = ROLES, next = '/'): Promise<SessionActor> {
  const actor = await actorFromHeaders(await headers());
  if (!actor) redirect(`/sign-in?next=${encodeURIComponent(next)}`);
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
