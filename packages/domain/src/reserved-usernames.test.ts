import { describe, expect, it } from 'vitest';
import { isReservedUsername, signupProblem, SIGNUP_MESSAGES, type SignupForm } from './accounts.ts';

const form = (username: string): SignupForm => ({
  email: 'fan@example.org',
  password: 'correct horse',
  confirmPassword: 'correct horse',
  name: 'Fan',
  username,
  acceptedTerms: true,
});

describe('reserved usernames', () => {
  it.each([
    'admin',
    'ADMIN',
    'Administrator',
    'root',
    'support',
    'Staff',
    'moderator',
    'official',
    'help',
    'security',
    'system',
    'streetflavor',
    'StreetFlavorRecords',
    'street.flavor',
    'spndat',
    'TheDatChain',
    'tdcmarket',
    ' admin ',
  ])('%s is reserved, in any case and after stripping', (username) => {
    expect(isReservedUsername(username)).toBe(true);
    expect(signupProblem(form(username), [])).toBe(SIGNUP_MESSAGES.usernameReserved);
  });

  it.each(['RealFan', 'adminfan', 'helpful', 'streetwise', 'flavor'])('%s is free', (username) => {
    expect(isReservedUsername(username)).toBe(false);
    expect(signupProblem(form(username), [])).toBeUndefined();
  });

  it("adds the server's SIGNUP_FOLLOW_USERNAMES", () => {
    expect(isReservedUsername('LabelCrew')).toBe(false);
    expect(signupProblem(form('LabelCrew'), [], ['labelcrew'])).toBe(SIGNUP_MESSAGES.usernameReserved);
  });

  it("keeps the spec's checks first: a reserved name that is also too long is 'too long'", () => {
    expect(signupProblem(form(`streetflavor${'x'.repeat(30)}`), [])).toBe(SIGNUP_MESSAGES.tooLong);
    expect(signupProblem({ ...form('admin'), acceptedTerms: false }, [])).toBe(SIGNUP_MESSAGES.termsNotAccepted);
  });
});
