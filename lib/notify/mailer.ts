import 'server-only';
import nodemailer, { type Transporter } from 'nodemailer';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';

/**
 * One plain-text email to several people who must not see each other's addresses: it goes to them
 * as Bcc, under a neutral To header (UNDISCLOSED_RECIPIENTS), as one message.
 */
export interface Mail {
  /** The recipients (the SMTP envelope's; no header names them). */
  bcc: string[];
  subject: string;
  text: string;
}

/** The To header of a mail whose recipients are all Bcc: an empty RFC 5322 group, as mail clients write it. */
export const UNDISCLOSED_RECIPIENTS = 'undisclosed-recipients:;';

let transport: { url: string; transporter: Transporter } | undefined;

/**
 * Sends `mail` from MAIL_FROM, its recipients as Bcc under the neutral To UNDISCLOSED_RECIPIENTS
 * (nodemailer puts them in the SMTP envelope and leaves the Bcc header out of the message, so no
 * recipient sees another's address): over SMTP when SMTP_URL is set; otherwise it is kept in the dev
 * mailbox table (shown at /dev/mailbox to admins, To empty and the Bcc list beside it) and logged —
 * local development needs no mail server.
 *
 * @returns where it went (`smtp` with the server's message id, or `dev-mailbox` with the row id)
 * @throws the transport's error when the SMTP server refuses or cannot be reached
 */
export async function sendMail(mail: Mail, db: PrismaClient = prisma()): Promise<{ via: 'smtp' | 'dev-mailbox'; id: string }> {
  const { SMTP_URL: url, MAIL_FROM: from } = env();
  if (url) {
    if (transport?.url !== url) transport = { url, transporter: nodemailer.createTransport(url) };
    const info = await transport.transporter.sendMail({ from, to: UNDISCLOSED_RECIPIENTS, bcc: mail.bcc, subject: mail.subject, text: mail.text });
    return { via: 'smtp', id: info.messageId };
  }
  const row = await db.devMail.create({ data: { id: crypto.randomUUID(), to: [], bcc: mail.bcc, from, subject: mail.subject, text: mail.text } });
  console.info(`[mail] SMTP_URL is unset: "${mail.subject}" to ${mail.bcc.join(', ')} (Bcc) kept in the dev mailbox (/dev/mailbox)`);
  return { via: 'dev-mailbox', id: row.id };
}
