import { expect, test as base, type Page } from '@playwright/test';

/** What a test may do with the console guard: allow an error it provokes, watch another page. */
export interface ConsoleGuard {
  allow: (pattern: RegExp) => void;
  watch: (page: Page) => void;
}

/**
 * Every test fails on a console error or an uncaught exception in any page it watches
 * (its own page always), except the ones it announces: Chromium logs every 4xx answer,
 * and some tests provoke one.
 */
export const test = base.extend<{ consoleErrors: ConsoleGuard }>({
  consoleErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      const allowed: RegExp[] = [];
      const watch = (target: Page) => {
        target.on('console', (message) => {
          if (message.type() === 'error') errors.push(`${message.text()} [${message.location().url}]`);
        });
        target.on('pageerror', (error) => errors.push(error.message));
      };
      watch(page);
      await use({ allow: (pattern) => allowed.push(pattern), watch });
      expect(
        errors.filter((text) => !allowed.some((pattern) => pattern.test(text))),
        'console errors',
      ).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The accounts the first start seeds (apps/server/src/accounts/accounts.seed.ts). */
export const DEMO_ADMIN = { email: 'admin@example.com', password: 'admin-demo-pass' };
export const DEMO_SHOPPER = { email: 'shopper@example.com', password: 'shopper-demo-pass' };
/** The demo shopper's ship-to address in order tests (a comma in a cell, for the packing list's CSV). */
export const DEMO_SHIPPING = { name: 'Demo Shopper', line1: '1 Record Row, Flat 2', line2: '', city: 'London', state: '', postal_code: 'N1 9GU', country: 'GB' };

/** The auth service wants the site's own origin on a sign-in (playwright.config.ts sets the port). */
export const ORIGIN = `http://127.0.0.1:${process.env.E2E_PORT ?? 3199}`;
