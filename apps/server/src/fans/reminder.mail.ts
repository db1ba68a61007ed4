import { formatUsd } from '@storefront/domain/money.ts';
import { escapeHtml } from '../http/html.ts';
import type { Mail } from '../mail/mailer.ts';

const SHOP = 'Street Flavor Records';

/**
 * The one reminder of a checkout left unpaid (decision 078). Marketing mail: only to fans who
 * consent, with RFC 8058's headers (set by the caller) and the signed-out unsubscribe link; its
 * link rebuilds the cart (a signed link naming the checkout).
 */
export function cartReminderMail(to: string, name: string, lines: { name: string; qty: number; unitCents: number }[], cartUrl: string, leaveUrl: string): Mail {
  const subject = 'You left something in your cart';
  const items = lines.map((line) => `${line.name}, quantity ${line.qty}, ${formatUsd(line.unitCents)} each`);
  const paragraphs = [name ? `Hi ${name},` : 'Hi,', 'You did not finish your order. Your cart is waiting for you:'];
  const after = 'You get this mail because you said yes to news from the label. We send it once for this cart.';
  const text = `${paragraphs.join('\n\n')}\n\n${items.map((item) => `- ${item}`).join('\n')}\n\nBack to your cart: ${cartUrl}\n\n${after}\n\nUnsubscribe: ${leaveUrl}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${paragraphs
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`)
    .join(
      '',
    )}<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul><p style="margin:24px 0"><a href="${escapeHtml(cartUrl)}">Back to your cart</a></p><p style="font-size:12px;color:#666">${escapeHtml(after)} <a href="${escapeHtml(leaveUrl)}">Unsubscribe</a></p></body></html>`;
  return { to, subject, text, html };
}
