import type { Mail } from '../mail/mailer.ts';
import { escapeHtml } from '../http/html.ts';

const SHOP = 'Street Flavor Records';

function page(title: string, paragraphs: readonly string[], action: { url: string; label: string }, footer: { url: string; label: string } | null): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const foot = footer ? `<p style="font-size:12px;color:#666"><a href="${escapeHtml(footer.url)}">${escapeHtml(footer.label)}</a></p>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${body}<p style="margin:24px 0"><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>${foot}</body></html>`;
}

/**
 * The waitlist's mail when a unit comes back (decisions 066 and 076): it answers the fan's own
 * request to be told (notify me, or a drop's waitlist), so it is not marketing and consent never
 * suppresses it; it links straight to the product and carries a link to leave the list. A sold-out
 * drop's variant keeps the unit for the fan until `until` (checkout enforces it); any other
 * variant is simply back, told to one fan per unit that came back.
 */
export function waitlistOfferMail(to: string, name: string, item: { name: string; until: Date; kept: boolean }, productUrl: string, leaveUrl: string): Mail {
  const until = item.until.toISOString().replace('T', ' ').slice(0, 16);
  const paragraphs = [
    name ? `Hi ${name},` : 'Hi,',
    item.kept
      ? `A unit of ${item.name} came back, and it is kept for you until ${until} UTC. After that it passes to the next fan on the waitlist.`
      : `${item.name} is back in stock. You asked to be told, and fans are told in the order they asked, one for each unit that came back.`,
    'You get this mail because you asked to be told when this item is back. It is not a newsletter.',
  ];
  const text = `${paragraphs.join('\n\n')}\n\nSee the product: ${productUrl}\n\nLeave this list: ${leaveUrl}`;
  const html = page('Back in stock', paragraphs, { url: productUrl, label: item.kept ? 'Buy it now' : 'See the product' }, { url: leaveUrl, label: 'Leave this list' });
  return { to, subject: item.kept ? `${item.name} is back: kept for you until ${until} UTC` : `${item.name} is back in stock`, text, html };
}

/** Notify me signed out (decision 076): the mailed link that puts the address on the list. */
export function notifyConfirmMail(to: string, item: string, confirmUrl: string): Mail {
  const paragraphs = [
    'Hi,',
    `Someone (we hope you) asked to be told by email when ${item} is back in stock. Confirm with the link below and we will tell you once, in the order fans asked.`,
    'If it was not you, ignore this mail: nothing is sent without the confirmation.',
  ];
  const text = `${paragraphs.join('\n\n')}\n\nConfirm: ${confirmUrl}`;
  return { to, subject: `Confirm: tell me when ${item} is back`, text, html: page('Confirm', paragraphs, { url: confirmUrl, label: 'Confirm' }, null) };
}
