import { redirect } from 'next/navigation';

export const dynamic = 'force-dynamic';

/** Every visit to `/` starts a fresh chat (`/?agent=supervisor` with another agent). */
export default async function Home({ searchParams }: { searchParams: Promise<{ agent?: string }> }) {
  const { agent } = await searchParams;
  const query = agent && /^[a-z0-9-]{1,100}$/.test(agent) ? `?agent=${agent}` : '';
  redirect(`/chat/${crypto.randomUUID()}${query}`);
}
