/**
 * Texts of the account pages that the spec does not word itself. The spec's own
 * messages live in @storefront/domain/accounts.ts (SIGNUP_MESSAGES, LOGIN_MESSAGES).
 */
export const ACCOUNT_TEXTS = {
  sisterProducts:
    'One account works across our three sister products: the music store, the video store and this shop.',
  signupDone: (email: string) =>
    email
      ? `Your account is ready. We sent a verification link to ${email}: open it, then log in.`
      : 'Your account is ready. We sent you a verification link: open it, then log in.',
  verified: 'Your email is verified. You can log in now.',
  failed: 'Something went wrong. Please try again.',
  resetInvalidLink: 'This password reset link is invalid or has expired.',
  resetInvalidHelp: 'Go back to the login page and choose Forgot Password? to get a new link.',
  resetDone: 'Your password has been changed. You can log in with it now.',
  passwordHint: 'At least 8 characters.',
  ssoContinue: 'Log in to continue to the app that sent you here.',
  ssoReturning: 'Signing you in to the app…',
} as const;
