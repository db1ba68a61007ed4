import type { Mail } from '../mail/mailer.ts';
import { escapeHtml } from '../http/html.ts';

const SHOP = 'Street Flavor Records';

/** The recipient's gift card (issue 27, decision 053): who sent it, their message, the code and where to redeem it. */
export function giftCardMail(to: string, card: { fromName: string; amount: string; code: string; message: string; walletUrl: string }): Mail {
  const from = card.fromName.trim() || 'Someone';
  const intro = `${from} sent you a ${card.amount} ${SHOP} gift card.`;
  const message = card.message ? [`Their message: ${card.message}`] : [];
  const redeem = `Redeem it as wallet credit on your wallet page (sign in or create an account first): ${card.walletUrl}`;
  const text = [intro, ...message, `Your code: ${card.code}`, redeem, 'The code works once. Keep it like cash.'].join('\n\n');
  const paragraphs = [intro, ...message].map((p) => `<p style="margin:0 0 16px;white-space:pre-line">${escapeHtml(p)}</p>`).join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your gift card</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${paragraphs}<p style="font-size:22px;font-weight:bold;letter-spacing:2px">${escapeHtml(card.code)}</p><p><a href="${escapeHtml(card.walletUrl)}">Redeem on your wallet page</a></p><p style="font-size:12px;color:#666">The code works once. Keep it like cash.</p></body></html>`;
  return { to, subject: `${from} sent you a ${SHOP} gift card`, text, html };
}
