import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A received message, parsed, with the SMTP envelope's recipients (RCPT TO: Bcc ones included). */
export type ReceivedMail = ParsedMail & { envelopeTo: string[] };

/** A real SMTP server on 127.0.0.1 that keeps every message it receives, parsed. */
export interface SmtpReceiver {
  port: number;
  /** The messages received so far, oldest first (the array grows as mail arrives). */
  received: ReceivedMail[];
  close: () => Promise<void>;
}

/**
 * Starts an SMTP receiver (`smtp-server`, no auth, no STARTTLS) on an ephemeral port, for tests that
 * check what the app mails: point SMTP_URL at `smtp://127.0.0.1:<port>`.
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      simpleParser(stream).then((mail) => {
        received.push(Object.assign(mail, { envelopeTo }));
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => smtp.close(resolve)),
  };
}
