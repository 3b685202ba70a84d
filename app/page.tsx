import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { actorFromHeaders } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';

/**
 * Every visit to `/` starts a fresh chat (`/?agent=supervisor` with another agent). Someone not
 * signed in is sent straight to sign-in by this HTTP redirect, before any chat is rendered.
 */
export default async function Home({ searchParams }: { searchParams: Promise<{ agent?: string }> }) {
  const { agent } = await searchParams;
  const query = agent && /^[a-z0-9-]{1,100}$/.test(agent) ? `?agent=${agent}` : '';
  if (!(await actorFromHeaders(await headers()))) redirect(`/sign-in?next=${encodeURIComponent(`/${query}`)}`);
  redirect(`/chat/${crypto.randomUUID()}${query}`);
}
