import type { z } from 'zod';
import type { signupInput } from './contracts/accounts.ts';

/**
 * Account rules of spec sections 3, 5 and 9: signup fields, their stripping rules, the
 * checks in the spec's order with its exact messages, and the login messages.
 * The server enforces them; the client mirrors them.
 */
export const SIGNUP_MESSAGES = {
  termsNotAccepted: 'You must accept the Terms and Conditions to create an account.',
  blockedDomain: 'This email domain is not allowed.',
  mandatoryFields: 'Please fill in all mandatory fields.',
  invalidEmail: 'Invalid email format.',
  passwordsDiffer: 'Passwords do not match.',
  tooLong: 'Name and username must be less than 30 characters.',
  usernameTaken: 'Username already taken',
  usernameReserved: 'This username is reserved for the label. Please choose another one.',
  failed: 'Signup failed',
  // Not worded by the spec: the password rules of our auth service.
  passwordTooShort: 'Password is too short: use at least 8 characters.',
  passwordTooLong: 'Password is too long: use at most 128 characters.',
} as const;

export const LOGIN_MESSAGES = {
  missingCredentials: 'Please enter both email and password',
  resetNeedsEmail: 'Please enter your email to reset your password',
  resetSent: 'Please check your email to reset your password',
  noUser: 'No user is logged in',
  noUserData: 'No user data found',
  /** Never says whether the email has an account. */
  invalidCredentials: 'Invalid email or password',
  verifyEmail: 'Please verify your email address. We have sent you a new verification link.',
} as const;

export const NAME_MAX = 30;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const USERNAME_MAX = 25;
export const CITY_MAX = 17;
export const MIN_AGE = 13;
export const VENDOR_FEE_PERCENT = 8;

export const ACCOUNT_TYPES = ['Fan', 'Artist', 'Band', 'RecordLabel', 'Producer', 'Songwriter', 'SPNCaster', 'Filmmaker', 'Director', 'Actor'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ACCOUNT_TYPE_LABELS: Record<AccountType, string> = {
  Fan: 'Personal',
  Artist: 'Artist',
  Band: 'Band',
  RecordLabel: 'Record Label',
  Producer: 'Producer',
  Songwriter: 'Songwriter',
  SPNCaster: 'SPNCaster',
  Filmmaker: 'Filmmaker',
  Director: 'Director',
  Actor: 'Actor',
};

/** The name field's label and placeholder, which change with the account type. */
export function nameFieldFor(type: AccountType): { label: string; placeholder: string } {
  switch (type) {
    case 'Fan':
      return { label: 'Name', placeholder: 'Your name' };
    case 'Band':
      return { label: 'Band Name', placeholder: 'Your band’s name' };
    case 'RecordLabel':
      return { label: 'Label Name', placeholder: 'Your record label’s name' };
    default:
      return { label: `${ACCOUNT_TYPE_LABELS[type]} Name`, placeholder: `Your ${ACCOUNT_TYPE_LABELS[type].toLowerCase()} name` };
  }
}

export const ARTIST_NAME_NOTE = 'Your artist name appears on your releases and cannot be changed.';

/** Accounts that keep music or video catalogues (spec section 3: non-Fan accounts). */
export function hasCatalogue(type: AccountType): boolean {
  return type !== 'Fan';
}

export const COUNTRIES = ['US', 'UK', 'CA', 'AU', 'DE', 'SE', 'FR', 'BR', 'JP', 'NL'] as const;
export type Country = (typeof COUNTRIES)[number];

export const US_STATES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
] as const;

/** Letters, digits and spaces only (as typed; the input also stops at NAME_MAX). */
export function stripName(value: string): string {
  return value.replace(/[^\p{L}\p{N} ]/gu, '');
}

/** Letters and digits only. */
export function stripUsername(value: string): string {
  return value.replace(/[^\p{L}\p{N}]/gu, '');
}

export function clampCity(value: string): string {
  return [...value].slice(0, CITY_MAX).join('');
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value);
}

/**
 * Usernames a stranger must not take: the label's official accounts (every new account
 * follows the ones in SIGNUP_FOLLOW_USERNAMES) and names that look like staff. Compared
 * after stripping, case-insensitively. Only an operator creates them
 * (`npm run cli -- create-label-account <username> <email>`).
 */
export const RESERVED_USERNAMES: readonly string[] = [
  'admin',
  'administrator',
  'admins',
  'root',
  'superuser',
  'sysadmin',
  'support',
  'staff',
  'moderator',
  'mod',
  'official',
  'help',
  'helpdesk',
  'security',
  'system',
  'owner',
  'operator',
  'webmaster',
  'postmaster',
  'hostmaster',
  'abuse',
  'billing',
  'info',
  'contact',
  'noreply',
  'team',
  'label',
  'shop',
  'store',
  // The default signup-admin accounts (SIGNUP_FOLLOW_USERNAMES); the server adds the configured ones.
  'spndat',
  'thedatchain',
  'tdcmarket',
];
/** Prefixes of the label's own names: streetflavor, StreetFlavorRecords, streetflavor2 ... */
export const RESERVED_USERNAME_PREFIXES: readonly string[] = ['streetflavor'];

/** Whether a username (as typed) is reserved; `extra` are more names (the server's settings). */
export function isReservedUsername(username: string, extra: readonly string[] = []): boolean {
  const lower = stripUsername(username.trim()).toLowerCase();
  if (!lower) return false;
  if (RESERVED_USERNAME_PREFIXES.some((prefix) => lower.startsWith(prefix))) return true;
  return RESERVED_USERNAMES.includes(lower) || extra.some((name) => stripUsername(name.trim()).toLowerCase() === lower);
}

/**
 * The signup form as sent to `createAccount`: the type of its contract's input
 * (contracts/accounts.ts), so the shape is written once. Type-only: no zod in the page.
 */
export type SignupForm = z.input<typeof signupInput>;

/** The email's domain in lower case ('' without an @). */
export function emailDomain(email: string): string {
  const address = email.trim().toLowerCase();
  return address.includes('@') ? address.slice(address.lastIndexOf('@') + 1) : '';
}

/**
 * The first failing check for signup, in the spec's order (section 5: terms, blocked
 * domain, mandatory fields, email format, passwords match, length), then the stripping
 * rules of the username and the password's length; undefined when the form may be sent.
 * The server and the signup form both run exactly this, so a form gets the same first
 * message on both sides. 'Username already taken' needs the database and is checked by
 * the server. A reserved username is refused last; `reservedUsernames` adds the
 * server's SIGNUP_FOLLOW_USERNAMES. `blockedDomains` undefined means not known yet (the browser before the
 * shop's settings arrive): the checks from the domain on are then left to the server.
 */
export function signupProblem(form: SignupForm, blockedDomains: readonly string[] | undefined, reservedUsernames: readonly string[] = []): string | undefined {
  if (!form.acceptedTerms) return SIGNUP_MESSAGES.termsNotAccepted;
  if (!blockedDomains) return undefined;
  const domain = emailDomain(form.email);
  if (domain && blockedDomains.some((blocked) => blocked.toLowerCase() === domain)) return SIGNUP_MESSAGES.blockedDomain;
  const email = form.email.trim().toLowerCase();
  if (!email || !form.password || !form.confirmPassword || !form.username.trim() || !form.name.trim()) {
    return SIGNUP_MESSAGES.mandatoryFields;
  }
  if (!isValidEmail(email)) return SIGNUP_MESSAGES.invalidEmail;
  if (form.password !== form.confirmPassword) return SIGNUP_MESSAGES.passwordsDiffer;
  if ([...form.name].length > NAME_MAX || [...form.username].length > NAME_MAX) return SIGNUP_MESSAGES.tooLong;
  const problem = usernameProblem(form.username) ?? passwordProblem(form.password);
  if (problem) return problem;
  if (isReservedUsername(form.username, reservedUsernames)) return SIGNUP_MESSAGES.usernameReserved;
  return undefined;
}

/** The password rules of the auth service (not worded by the spec). */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return SIGNUP_MESSAGES.passwordTooShort;
  if (password.length > PASSWORD_MAX) return SIGNUP_MESSAGES.passwordTooLong;
  return undefined;
}

/** The profile fields as stored: stripped, bounded and checked against the lists. */
export function normaliseSignup(form: SignupForm) {
  const accountType = (ACCOUNT_TYPES as readonly string[]).includes(form.accountType ?? '') ? (form.accountType as AccountType) : 'Fan';
  const country = (COUNTRIES as readonly string[]).includes(form.country ?? '') ? (form.country as Country) : null;
  const usState = country === 'US' && (US_STATES as readonly string[]).includes(form.state ?? '') ? form.state! : null;
  const username = stripUsername(form.username.trim());
  return {
    email: form.email.trim().toLowerCase(),
    name: stripName(form.name.trim()),
    username,
    usernameLower: username.toLowerCase(),
    city: clampCity((form.city ?? '').trim()),
    country,
    // Spec: the US state code, or the country code for non-US accounts.
    state: usState ?? (country && country !== 'US' ? country : null),
    accountType,
  };
}

/** Usernames that break the stripping or length rules once stripped. */
export function usernameProblem(username: string): string | undefined {
  const stripped = stripUsername(username.trim());
  if (!stripped) return SIGNUP_MESSAGES.mandatoryFields;
  if ([...stripped].length > USERNAME_MAX) return SIGNUP_MESSAGES.tooLong;
  return undefined;
}

export function loginProblem(email: string, password: string): string | undefined {
  return email.trim() && password ? undefined : LOGIN_MESSAGES.missingCredentials;
}
