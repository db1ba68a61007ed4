import { describe, expect, it } from 'vitest';
import { invitationStatus, recoupPercent, recoupSentence } from './royalty-portal.ts';

describe('the portal’s recoup progress', () => {
  it('reads as a person says it, rounding down so 100% means all of it', () => {
    expect(recoupSentence('Portal EP', 1000, 200000)).toBe('Portal EP: $10.00 of $2,000.00 recouped (under 1%), $1,990.00 to go');
    expect(recoupSentence('Portal EP', 0, 200000)).toBe('Portal EP: $0.00 of $2,000.00 recouped (0%), $2,000.00 to go');
    expect(recoupSentence('Portal EP', 199999, 200000)).toBe('Portal EP: $1,999.99 of $2,000.00 recouped (99%), $0.01 to go');
    expect(recoupSentence('Portal EP', 200000, 200000)).toBe('Portal EP: $2,000.00 of $2,000.00 recouped (100%), all recouped');
    expect(recoupPercent(-50, 1000)).toBe(0);
    expect(recoupPercent(5000, 1000)).toBe(100);
  });
});

describe('an invitation’s state', () => {
  const now = Date.parse('2026-12-07T12:00:00Z');
  const base = { acceptedAt: null, revokedAt: null, expiresAt: '2026-12-10T00:00:00Z' };
  it('is withdrawn over accepted over expired over pending', () => {
    expect(invitationStatus(base, now)).toBe('pending');
    expect(invitationStatus({ ...base, expiresAt: '2026-12-07T12:00:00Z' }, now)).toBe('expired');
    expect(invitationStatus({ ...base, expiresAt: '2026-12-01T00:00:00Z', acceptedAt: '2026-11-30T00:00:00Z' }, now)).toBe('accepted');
    expect(invitationStatus({ ...base, acceptedAt: '2026-12-06T00:00:00Z', revokedAt: '2026-12-07T00:00:00Z' }, now)).toBe('revoked');
  });
});
