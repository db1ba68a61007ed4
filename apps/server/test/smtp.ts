import { SMTPServer } from 'smtp-server';

/** A real SMTP peer on 127.0.0.1 that keeps every message it receives. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone. */
  decoded: string;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * `delayMs`: each message is accepted after this long, as a provider across the network answers.
 * `refuse`: recipients refused for good (550 to RCPT TO: a hard bounce), each attempt counted.
 */
export async function startSmtpPeer(options: { delayMs?: number; refuse?: string[] } = {}) {
  const mails: ReceivedMail[] = [];
  const refused: string[] = [];
  const connections = { open: 0, most: 0, total: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      connections.open += 1;
      connections.total += 1;
      connections.most = Math.max(connections.most, connections.open);
      callback();
    },
    onClose() {
      connections.open -= 1;
    },
    onRcptTo(address, _session, callback) {
      if (!options.refuse?.includes(address.address)) return callback();
      refused.push(address.address);
      callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        const keep = () => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, decoded: decodeQuotedPrintable(raw) });
          callback();
        };
        if (options.delayMs) setTimeout(keep, options.delayMs);
        else keep();
      });
    },
  });
  // A client that vanishes mid-message (a server killed while sending, as the crash tests do)
  // is an 'error' of the peer's server: kept here, not thrown into the test run.
  const errors: Error[] = [];
  server.on('error', (error: Error) => errors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  /** Waits (polling, with a deadline) for the next mail to `to` after the first `after` ones. */
  async function waitForMail(to: string, after = 0, timeoutMs = 15_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.filter((mail) => mail.to.includes(to))[after];
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No mail #${after + 1} to ${to} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits for a mail to `to` whose decoded text contains `text`. */
  async function waitForText(to: string, text: string, timeoutMs = 15_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.find((mail) => mail.to.includes(to) && mail.decoded.includes(text));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No mail to ${to} containing "${text}" within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return {
    waitForText,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Recipients refused (RCPT TO answered 550), one per attempt. */
    refused,
    /** SMTP connections: open now, the most open at once, and made in all. */
    connections,
    /** Connections that failed (a client reset mid-message), in order. */
    errors,
    waitForMail,
    mailsTo: (to: string) => mails.filter((mail) => mail.to.includes(to)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link into our auth endpoints in a mail. */
export function authLink(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s"<>]+\/api\/auth\/[^\s"<>]+/.exec(mail.decoded);
  if (!match) throw new Error(`No auth link in mail:\n${mail.decoded}`);
  return match[0].replaceAll('&#38;', '&').replaceAll('&amp;', '&');
}
