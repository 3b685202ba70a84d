import { Mail } from 'lucide-react';
import type { Metadata } from 'next';
import { AppNav } from '@/components/ui/app-nav';
import { LocalTime } from '@/components/ui/time';
import { requirePageActor } from '@/lib/auth/session';
import { env } from '@/lib/env';
import { prisma } from '@/lib/store/db';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Dev mailbox' };

/**
 * Mail the app would have sent, kept while SMTP_URL is unset (local development): the newest 50,
 * for admins, each with its To and its Bcc list (reviewer mail goes to all of them as Bcc). With SMTP_URL set, mail goes to the mail server and this page says so.
 */
export default async function DevMailboxPage() {
  const admin = await requirePageActor(['admin']);
  const mails = await prisma().devMail.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 50 });
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <Mail className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Dev mailbox</h1>
        <AppNav viewer={{ id: admin.id, name: admin.name, role: admin.role }} />
      </header>
      <main className="flex min-w-0 flex-1 flex-col gap-3 p-3 md:p-4">
        <p className="text-sm text-muted-foreground">
          {env().SMTP_URL
            ? 'SMTP_URL is set: mail goes to the mail server. Below is what was kept before.'
            : 'SMTP_URL is unset, so mail is kept here instead of being sent (the newest 50).'}
        </p>
        {mails.length === 0 ? (
          <p data-testid="mailbox-empty" className="p-8 text-center text-sm text-muted-foreground">
            No mail yet.
          </p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label="Mail">
            {mails.map((mail) => (
              <li key={mail.id} data-testid="dev-mail" className="rounded-md border border-border p-3">
                <article aria-label={mail.subject}>
                  <h2 className="text-sm font-semibold break-words">{mail.subject}</h2>
                  <p className="text-xs break-words text-muted-foreground">
                    To {mail.to.length > 0 ? mail.to.join(', ') : 'undisclosed recipients'}
                    {mail.bcc.length > 0 ? ` · Bcc ${mail.bcc.join(', ')}` : ''} · from {mail.from} · <LocalTime iso={mail.createdAt.toISOString()} />
                  </p>
                  <pre className="mt-2 text-xs break-words whitespace-pre-wrap">{mail.text}</pre>
                </article>
              </li>
            ))}
          </ul>
        )}
      </main>
    </div>
  );
}
