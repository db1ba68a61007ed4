import { escapeHtml } from '../http/html.ts';
import type { Mail } from '../mail/mailer.ts';

const SHOP = 'Street Flavor Records';

/**
 * A wishlisted item is back in stock or open for preorder (decision 076). It goes only to fans
 * who consent to marketing mail, with RFC 8058's headers (set by the caller), links to the product
 * and to the wishlist (where the heart removes it), and the signed-out unsubscribe page.
 */
export function wishlistBackMail(to: string, name: string, item: { name: string; preorder: boolean }, productUrl: string, wishlistUrl: string, leaveUrl: string): Mail {
  const news = item.preorder ? `${item.name} from your wishlist is open for preorder.` : `${item.name} from your wishlist is back in stock.`;
  const paragraphs = [name ? `Hi ${name},` : 'Hi,', news, 'You get this mail because the item is on your wishlist and you said yes to news from the label.'];
  const text = `${paragraphs.join('\n\n')}\n\nSee it: ${productUrl}\n\nYour wishlist: ${wishlistUrl}\n\nUnsubscribe: ${leaveUrl}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(news)}</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${paragraphs
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`)
    .join(
      '',
    )}<p style="margin:24px 0"><a href="${escapeHtml(productUrl)}">See it</a></p><p style="font-size:12px;color:#666"><a href="${escapeHtml(wishlistUrl)}">Your wishlist</a> · <a href="${escapeHtml(leaveUrl)}">Unsubscribe</a></p></body></html>`;
  return { to, subject: item.preorder ? `Open for preorder: ${item.name}` : `Back in stock: ${item.name}`, text, html };
}
