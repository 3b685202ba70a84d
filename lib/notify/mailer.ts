import 'server-only';
import nodemailer, { type Transporter } from 'nodemailer';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';

/** One plain-text email. */
export interface Mail {
  to: string[];
  subject: string;
  text: string;
}

let transport: { url: string; transporter: Transporter } | undefined;

/**
 * Sends `mail` from MAIL_FROM: over SMTP (nodemailer) when SMTP_URL is set; otherwise it is kept
 * in the dev mailbox table (shown at /dev/mailbox to admins) and logged — local development needs
 * no mail server.
 *
 * @returns where it went (`smtp` with the server's message id, or `dev-mailbox` with the row id)
 * @throws the transport's error when the SMTP server refuses or cannot be reached
 */
export async function sendMail(mail: Mail, db: PrismaClient = prisma()): Promise<{ via: 'smtp' | 'dev-mailbox'; id: string }> {
  const { SMTP_URL: url, MAIL_FROM: from } = env();
  if (url) {
    if (transport?.url !== url) transport = { url, transporter: nodemailer.createTransport(url) };
    const info = await transport.transporter.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    return { via: 'smtp', id: info.messageId };
  }
  const row = await db.devMail.create({ data: { id: crypto.randomUUID(), to: mail.to, from, subject: mail.subject, text: mail.text } });
  console.info(`[mail] SMTP_URL is unset: "${mail.subject}" to ${mail.to.join(', ')} kept in the dev mailbox (/dev/mailbox)`);
  return { via: 'dev-mailbox', id: row.id };
}
