import { describe, expect, it } from 'vitest';
import { emailDomain, SIGNUP_MESSAGES, signupProblem, type SignupForm } from './accounts.ts';

const BLOCKED = ['mailinator.com', 'guerrillamail.com'];

const valid: SignupForm = {
  email: 'fan@example.org',
  password: 'long enough',
  confirmPassword: 'long enough',
  name: 'Real Fan',
  username: 'RealFan',
  acceptedTerms: true,
};

describe('signupProblem: one order for the server and the signup form (spec section 5, issue 17)', () => {
  const empty = { email: '', password: '', confirmPassword: '', name: '', username: '' };
  const cases: [string, Partial<SignupForm>, string | undefined][] = [
    ['a valid form', {}, undefined],
    ['terms not accepted, everything else wrong too', { ...empty, email: 'x@mailinator.com', acceptedTerms: false }, SIGNUP_MESSAGES.termsNotAccepted],
    ['blocked domain with every other field empty', { ...empty, email: 'x@mailinator.com' }, SIGNUP_MESSAGES.blockedDomain],
    ['blocked domain in any case, with spaces', { email: '  X@GuerrillaMail.COM ' }, SIGNUP_MESSAGES.blockedDomain],
    ['a domain that only ends like a blocked one', { email: 'x@notmailinator.com' }, undefined],
    ['every field empty', empty, SIGNUP_MESSAGES.mandatoryFields],
    ['blank username', { username: '   ' }, SIGNUP_MESSAGES.mandatoryFields],
    ['bad email with a mismatch too', { email: 'not-an-email', confirmPassword: 'other' }, SIGNUP_MESSAGES.invalidEmail],
    ['passwords differ and the name is too long', { confirmPassword: 'other', name: 'n'.repeat(31) }, SIGNUP_MESSAGES.passwordsDiffer],
    ['name of 31 characters', { name: 'n'.repeat(31) }, SIGNUP_MESSAGES.tooLong],
    ['username of 31 characters', { username: 'u'.repeat(31) }, SIGNUP_MESSAGES.tooLong],
    ['username of 26 letters (max 25 once stripped)', { username: 'u'.repeat(26) }, SIGNUP_MESSAGES.tooLong],
    ['username of symbols only', { username: '!!!' }, SIGNUP_MESSAGES.mandatoryFields],
    ['password of 7 characters', { password: 'seven77', confirmPassword: 'seven77' }, SIGNUP_MESSAGES.passwordTooShort],
    ['password of 8 characters', { password: 'eight888', confirmPassword: 'eight888' }, undefined],
    ['password of 129 characters', { password: 'p'.repeat(129), confirmPassword: 'p'.repeat(129) }, SIGNUP_MESSAGES.passwordTooLong],
  ];
  it.each(cases)('%s', (_name, overrides, message) => {
    expect(signupProblem({ ...valid, ...overrides }, BLOCKED)).toBe(message);
  });

  it('checks only the terms while the blocked domains are not known, leaving the rest to the server', () => {
    expect(signupProblem({ ...valid, acceptedTerms: false }, undefined)).toBe(SIGNUP_MESSAGES.termsNotAccepted);
    expect(signupProblem({ ...valid, email: 'x@mailinator.com', password: '' }, undefined)).toBeUndefined();
  });

  it.each([
    ['fan@Example.ORG', 'example.org'],
    ['a@b@c.com', 'c.com'],
    ['no-at-sign', ''],
  ])('emailDomain(%s) is %s', (email, domain) => expect(emailDomain(email)).toBe(domain));
});
