import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { htmlPage } from '../http/html.ts';
import { enableLocalPayouts } from './payouts.service.ts';

/** The local provider's onboarding page: a creator confirms and payouts are enabled. */
export async function localPayoutRoutes(app: FastifyInstance, options: { db: Db; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> }) {
  const page = (body: string) => htmlPage('Payout account · Street Flavor Records', body, { look: 'shop' });
  // The royalties portal's "Connect payouts" (decision 080) comes back to the portal; anything else to Cash Out.
  const toPortal = (value: unknown) => value === 'portal';
  app.get('/payouts/onboard', async (request, reply) => {
    const caller = await options.resolveCaller(request);
    if (!caller) return reply.redirect('/login');
    const portal = toPortal((request.query as { return?: unknown }).return);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        page(
          `<h1 style="font-size:22px">Set up payouts</h1><p>Test onboarding (local provider): confirm to enable payouts to your account.</p><form method="post" action="/payouts/onboard">${portal ? '<input type="hidden" name="return" value="portal">' : ''}<button type="submit" style="padding:12px;font-size:16px;font-weight:bold">Enable payouts</button></form><p>${portal ? '<a href="/portal" style="color:#f2c14e">Back to your royalties</a>' : '<a href="/wallet" style="color:#f2c14e">Back to wallet</a>'}</p>`,
        ),
      );
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));
  app.post('/payouts/onboard', async (request, reply) => {
    const caller = await options.resolveCaller(request);
    if (!caller) return reply.redirect('/login');
    await enableLocalPayouts(options.db, caller.userId);
    return reply.redirect(toPortal(new URLSearchParams(typeof request.body === 'string' ? request.body : '').get('return')) ? '/portal' : '/cashout');
  });
}
