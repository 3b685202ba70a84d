import { redirect } from 'next/navigation';

export const dynamic = 'force-dynamic';

/** Every visit to `/` starts a fresh chat. */
export default function Home() {
  redirect(`/chat/${crypto.randomUUID()}`);
}
