import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 that keeps every message it receives, parsed. */
export interface SmtpReceiver {
  port: number;
  /** The messages received so far, oldest first (the array grows as mail arrives). */
  received: ParsedMail[];
  close: () => Promise<void>;
}

/**
 * Starts an SMTP receiver (`smtp-server`, no auth, no STARTTLS) on an ephemeral port, for tests that
 * check what the app mails: point SMTP_URL at `smtp://127.0.0.1:<port>`.
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ParsedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        received.push(mail);
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
