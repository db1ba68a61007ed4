import { signConsentLink } from './consent-links.ts';

/**
 * RFC 8058 one-click unsubscribe (decision 074), for every marketing mail (announcements,
 * issue 37 part 3): `List-Unsubscribe` names the signed leave link (HTTPS, no cookie needed)
 * and `List-Unsubscribe-Post` asks the mail client to POST `List-Unsubscribe=One-Click` to it,
 * which ends the consent. A GET of the same link only shows a button.
 */
export function leaveLink(origin: string, secret: string, email: string): string {
  return `${origin}/news/leave?token=${encodeURIComponent(signConsentLink(secret, 'news-leave', email))}`;
}

export function listUnsubscribeHeaders(origin: string, secret: string, email: string): Record<'List-Unsubscribe' | 'List-Unsubscribe-Post', string> {
  return { 'List-Unsubscribe': `<${leaveLink(origin, secret, email)}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
