import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/database.ts';
import { securityHeaders } from './security-headers.ts';

const production = (publicUrl: string) =>
  testConfig({ env: { NODE_ENV: 'production', PUBLIC_URL: publicUrl, SMTP_URL: 'smtp://127.0.0.1:2525', PAYMENT_PROVIDER: 'local', ALLOW_TEST_PAYMENTS: '1' } });

describe('HSTS and upgrade-insecure-requests (issue 13)', () => {
  it('are sent by a production shop whose PUBLIC_URL is https', () => {
    const headers = securityHeaders(production('https://shop.example'));
    expect(headers['strict-transport-security']).toMatch(/^max-age=31536000; includeSubDomains/);
    expect(headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });

  it('are not sent by a production shop on plain http (browsers would upgrade to an https nobody answers)', () => {
    const headers = securityHeaders(production('http://shop.example:8080'));
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    // The rest of the policy stays.
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it('are not sent outside production, even with an https PUBLIC_URL', () => {
    const headers = securityHeaders(testConfig({ env: { PUBLIC_URL: 'https://shop.example' } }));
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});
