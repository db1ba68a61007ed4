/**
 * The server-rendered pages (the local pay page, local payout onboarding, the sign-in
 * steps of single sign-on, the dev mailbox) share one escaper and one page shell. Every
 * value that did not come from this file's caller as markup goes through escapeHtml.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The shop's dark look of the local provider's pages (pay, payout onboarding). */
const SHOP_STYLE = 'font-family:Helvetica,Arial,sans-serif;background:#111;color:#eee;max-width:480px;margin:0 auto;padding:24px';

/** A whole HTML page: `title` is text (escaped here), `body` is markup the caller built with escapeHtml. */
export function htmlPage(title: string, body: string, options: { look?: 'shop' | 'plain' } = {}): string {
  const style = options.look === 'shop' ? ` style="${SHOP_STYLE}"` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="icon" type="image/svg+xml" href="/favicon.svg"></head><body${style}>${body}</body></html>`
  );
}

/** A page that only says something: a heading, a sentence or none, and one link onwards. */
export function messagePage(title: string, message: string, link: { label: string; href: string }, options: { look?: 'shop' | 'plain' } = {}): string {
  const text = message ? `<p>${escapeHtml(message)}</p>` : '';
  return htmlPage(title, `<main><h1>${escapeHtml(title)}</h1>${text}<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p></main>`, options);
}
