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

/** Marketing consent (issue 37 part 2, decision 074): always its own box, never ticked for the fan. */
export const NEWS_TEXTS = {
  box: 'Send me the label’s newsletter (new releases, merch, shows)',
  formTitle: 'Get our news',
  formLead: 'New releases, merch and shows by email. We send a link to confirm first; every mail has a one-click way out.',
  emailLabel: 'Your email',
  submit: 'Sign up',
  sent: 'Check your inbox: we sent you a link to confirm.',
  failed: 'Could not sign you up. Please try again.',
  /** Not “News by email”: /account's Email card is found by its name. */
  accountTitle: 'The label’s newsletter',
  accountOn: 'You get our news by email.',
  accountOff: 'You do not get our news by email.',
  give: 'Send me news',
  stop: 'Stop the news',
  since: (source: string, page: string, when: string) => `Given ${when} (${source}, on ${page}).`,
} as const;
