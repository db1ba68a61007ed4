import { escapeHtml } from '../http/html.ts';
import type { Mail } from '../mail/mailer.ts';
import { leaveLink, listUnsubscribeHeaders } from './list-unsubscribe.ts';

const SHOP = 'Street Flavor Records';

export interface AnnouncementContent {
  subject: string;
  body: string;
  /** The shop's own image path, or ''. */
  image: string;
  linkTitle: string;
  linkPath: string;
}

/**
 * An announcement as a fan gets it (decision 079): the label's text in paragraphs, its image,
 * a button to the release, product or drop, and, being marketing, RFC 8058's List-Unsubscribe
 * with one-click List-Unsubscribe-Post and a footer link to the signed-out unsubscribe page.
 */
export function announcementMail(content: AnnouncementContent, to: { email: string; name: string }, origin: string, secret: string): Mail {
  const leaveUrl = leaveLink(origin, secret, to.email);
  const paragraphs = content.body
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  const linkUrl = content.linkPath ? `${origin}${content.linkPath}` : '';
  const imageUrl = content.image ? (/^https?:\/\//.test(content.image) ? content.image : `${origin}${content.image}`) : '';
  const greeting = to.name ? `Hi ${to.name},` : 'Hi,';
  const why = 'You get this mail because you follow us and said yes to news from the label.';
  const text = [greeting, ...paragraphs, ...(linkUrl ? [`${content.linkTitle || 'See it'}: ${linkUrl}`] : []), why, `Unsubscribe: ${leaveUrl}`].join('\n\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${
    imageUrl ? `<p style="margin:0 0 16px"><img src="${escapeHtml(imageUrl)}" alt="" style="max-width:100%;height:auto"></p>` : ''
  }<p style="margin:0 0 16px">${escapeHtml(greeting)}</p>${paragraphs.map((p) => `<p style="margin:0 0 16px;white-space:pre-line">${escapeHtml(p)}</p>`).join('')}${
    linkUrl
      ? `<p style="margin:24px 0"><a href="${escapeHtml(linkUrl)}" style="background:#111;color:#fff;padding:10px 16px;text-decoration:none">${escapeHtml(content.linkTitle || 'See it')}</a></p>`
      : ''
  }<p style="font-size:12px;color:#666">${escapeHtml(why)} <a href="${escapeHtml(leaveUrl)}">Unsubscribe</a></p></body></html>`;
  return { to: to.email, subject: content.subject, text, html, headers: listUnsubscribeHeaders(origin, secret, to.email) };
}
