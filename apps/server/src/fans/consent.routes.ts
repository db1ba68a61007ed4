import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { escapeHtml, htmlPage, messagePage } from '../http/html.ts';
import { verifyConsentLink, type ConsentPurpose } from './consent-links.ts';
import { confirmConsent, withdrawConsent } from './consent.service.ts';

const INVALID = 'This link is not valid (or has expired).';

/**
 * The mailed links of marketing consent (decision 074), signed-out pages that need no cookie:
 *
 * - `/news/confirm?token=`: GET shows a Confirm button; its POST turns the pending request into consent.
 * - `/news/leave?token=`: GET shows a Stop button; a POST (that button, or a mail client's RFC 8058
 *   one-click `List-Unsubscribe=One-Click`) withdraws the consent.
 *
 * A GET changes nothing, so a mail scanner that opens every link neither confirms nor unsubscribes.
 */
export async function consentRoutes(app: FastifyInstance, options: { db: Db; config: Config }) {
  const { db, config } = options;
  const secrets = [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];
  // The button's POST and RFC 8058's (urlencoded or multipart): the token is in the address; the body only says which.
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => done(null, body));

  const emailOf = (request: FastifyRequest<{ Querystring: { token?: string } }>, purpose: ConsentPurpose) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    return { token, email: verifyConsentLink(secrets, purpose, token) };
  };
  const page = (reply: FastifyReply, status: number, html: string) =>
    reply.status(status).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8').send(html);
  const buttonPage = (title: string, text: string, action: string, label: string) =>
    htmlPage(
      title,
      `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><form method="post" action="${escapeHtml(action)}"><button type="submit">${escapeHtml(label)}</button></form></main>`,
      { look: 'shop' },
    );
  const home = { label: 'Go to the shop', href: '/' };

  app.get<{ Querystring: { token?: string } }>('/news/confirm', async (request, reply) => {
    const { token, email } = emailOf(request, 'news-confirm');
    if (!email) return page(reply, 400, messagePage(INVALID, '', home, { look: 'shop' }));
    return page(reply, 200, buttonPage('Confirm your news', `Get news from Street Flavor Records at ${email}.`, `/news/confirm?token=${encodeURIComponent(token)}`, 'Confirm'));
  });
  app.post<{ Querystring: { token?: string } }>('/news/confirm', async (request, reply) => {
    const { email } = emailOf(request, 'news-confirm');
    if (!email) return page(reply, 400, messagePage(INVALID, '', home, { look: 'shop' }));
    await confirmConsent(db, email);
    return page(reply, 200, messagePage('You will get our news.', `Confirmed for ${email}. Every mail has a link to stop it.`, home, { look: 'shop' }));
  });
  app.get<{ Querystring: { token?: string } }>('/news/leave', async (request, reply) => {
    const { token, email } = emailOf(request, 'news-leave');
    if (!email) return page(reply, 400, messagePage(INVALID, '', home, { look: 'shop' }));
    return page(reply, 200, buttonPage('Stop the news', `No more news from Street Flavor Records to ${email}.`, `/news/leave?token=${encodeURIComponent(token)}`, 'Stop the news'));
  });
  app.post<{ Querystring: { token?: string }; Body: unknown }>('/news/leave', async (request, reply) => {
    const { email } = emailOf(request, 'news-leave');
    if (!email) return page(reply, 400, messagePage(INVALID, '', home, { look: 'shop' }));
    // A mail client's one-click POST has no page to show; the same answer does for both.
    const oneClick = typeof request.body === 'string' && request.body.includes('List-Unsubscribe=One-Click');
    await withdrawConsent(db, email, oneClick ? 'one-click' : 'link');
    return page(reply, 200, messagePage('You will get no more news.', `Nothing more goes to ${email}.`, home, { look: 'shop' }));
  });
}
