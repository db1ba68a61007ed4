/**
 * The TEST MODE banner (issue 13): shown on every page while card payments are fake (the
 * local provider; in production only with ALLOW_TEST_PAYMENTS=1, a staging shop). It is
 * part of the HTML the server sends, so it shows before and without any script, on the
 * web app's every page (the admin release view included) and on the payment page.
 */
export const TEST_MODE_TEXT = 'TEST MODE: payments here are not real and no card is charged.';

export const TEST_MODE_BANNER =
  '<div class="test-mode-banner" data-test-mode="true" style="background:#f2c14e;color:#111;text-align:center;' +
  'font:bold 14px/1.4 Helvetica,Arial,sans-serif;padding:6px 12px;margin:0">' +
  `${TEST_MODE_TEXT}</div>`;

/** The page with the banner as the first thing in its body. */
export function withTestModeBanner(html: string): string {
  const body = /<body[^>]*>/i.exec(html);
  if (!body) return TEST_MODE_BANNER + html;
  const at = body.index + body[0].length;
  return html.slice(0, at) + TEST_MODE_BANNER + html.slice(at);
}
