import type { Mail } from '../mail/mailer.ts';
import { escapeHtml } from '../http/html.ts';

const SHOP = 'Street Flavor Records';

/**
 * The waitlist's offer (decision 066): it answers the fan's own request to be told, so it is
 * not marketing; it names the window and carries a link to leave the list.
 */
export function waitlistOfferMail(to: string, name: string, item: { name: string; until: Date }, buyUrl: string, leaveUrl: string): Mail {
  const until = item.until.toISOString().replace('T', ' ').slice(0, 16);
  const paragraphs = [
    `Hi ${name},`,
    `A unit of ${item.name} came back, and it is kept for you until ${until} UTC. After that it passes to the next fan on the waitlist.`,
    'You get this mail because you joined the waitlist for this item.',
  ];
  const text = `${paragraphs.join('\n\n')}\n\nBuy it: ${buyUrl}\n\nLeave this waitlist: ${leaveUrl}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A unit is kept for you</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${paragraphs
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`)
    .join(
      '',
    )}<p style="margin:24px 0"><a href="${escapeHtml(buyUrl)}">Buy it now</a></p><p style="font-size:12px;color:#666"><a href="${escapeHtml(leaveUrl)}">Leave this waitlist</a></p></body></html>`;
  return { to, subject: `${item.name} is back: kept for you until ${until} UTC`, text, html };
}
