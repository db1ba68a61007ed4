/** The label's name on follow buttons and /account (decision 074). */
export const LABEL_NAME = 'Street Flavor Records';

export const FOLLOW_TEXTS = {
  follow: (name: string) => `Follow ${name}`,
  following: (name: string) => `Following ${name}`,
  unfollow: (name: string) => `Unfollow ${name}`,
  signIn: 'Log in to follow',
  failed: 'Could not change the follow. Please try again.',
  none: 'You follow nobody yet.',
} as const;
