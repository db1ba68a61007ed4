/** Notify me's sentences (decision 076), shared with the browser tests. */
export const NOTIFY_TEXTS = {
  ask: (name: string) => `Notify me when ${name} is back`,
  on: 'We will email you when it is back: fans are told in the order they asked, one for each unit that comes back.',
  leave: (name: string) => `Stop notifying me about ${name}`,
  emailLabel: 'Your email',
  lead: 'Sold out. Leave your email and we will tell you when it is back.',
  failed: 'Could not ask to be notified.',
} as const;
