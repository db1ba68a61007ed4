import { escapeHtml } from '../http/html.ts';
import type { Mail } from '../mail/mailer.ts';
import { INVITATION_DAYS } from '@storefront/domain/royalty-portal.ts';

const SHOP = 'Street Flavor Records';

/** The portal invitation (decision 080): who invites whom to what, the link, and what it shows. */
export function invitationMail(to: string, partyName: string, url: string): Mail {
  const paragraphs = [
    'Hi,',
    `${SHOP} invites you to see the royalties of ${partyName}: your statements, live sales of your releases, how much of the costs is recouped, and your payouts.`,
    `Open the link and sign in with your ${SHOP} account (the one the sister apps use), or create one. The link works once and for ${INVITATION_DAYS} days.`,
    'If you did not expect this, ignore this email.',
  ];
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your royalties portal</title></head><body style="font-family:Helvetica,Arial,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(SHOP)}</h1>${paragraphs
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`)
    .join(
      '',
    )}<p style="margin:24px 0"><a href="${escapeHtml(url)}">Open your royalties</a></p><p style="font-size:12px;color:#666">Or open this link: ${escapeHtml(url)}</p></body></html>`;
  return { to, subject: `Your royalties at ${SHOP}: ${partyName}`, text: `${paragraphs.join('\n\n')}\n\n${url}`, html };
}
