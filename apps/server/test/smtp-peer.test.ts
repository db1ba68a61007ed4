import net from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startSmtpPeer } from './smtp.ts';

// The test SMTP peer outlives its clients: the crash tests kill a server while it hands a mail
// over, and the reset reached the test run as an uncaught ECONNRESET (CI, session 15).
describe('the test SMTP peer', () => {
  const peer = startSmtpPeer();
  afterAll(async () => (await peer).close());

  it('keeps a client reset in the middle of a message as an error of its own, not an uncaught exception', async () => {
    const smtp = await peer;
    const { port } = new URL(smtp.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let said = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (said += chunk));
    const answered = (code: string) => vi.waitFor(() => expect(said).toMatch(new RegExp(`^${code} `, 'm')), { timeout: 5_000 });
    await answered('220');
    socket.write('EHLO crash.test\r\nMAIL FROM:<shop@example.com>\r\nRCPT TO:<fan@example.com>\r\nDATA\r\n');
    await answered('354');
    socket.write('Subject: half a mail\r\n\r\nThe sender dies here');
    socket.resetAndDestroy();
    await vi.waitFor(() => expect(smtp.errors.map((error) => (error as NodeJS.ErrnoException).code)).toContain('ECONNRESET'), { timeout: 5_000 });
    expect(smtp.mails).toEqual([]);
  });
});
