import { paths } from '../../lib/paths.ts';
/** What a content page says while the label has not written it yet (ComingSoon). */
export const COMING_SOON = {
  home: {
    title: 'New music is on its way.',
    message: 'The label’s releases will be here soon. The shop is open in the meantime.',
    action: { to: paths.shop, label: 'Visit the shop' },
  },
  about: {
    title: 'Our story is coming soon.',
    message: 'The artist and the label will introduce themselves here shortly.',
    action: { to: paths.shop, label: 'Visit the shop' },
  },
  history: {
    title: 'The release timeline is coming soon.',
    message: 'Every release of the label will be listed here, from the first record to the latest.',
    action: { to: paths.shop, label: 'Visit the shop' },
  },
  'privacy-policy': {
    title: 'Our privacy policy is being written.',
    message: 'Questions about your data in the meantime? Write to us through the Contact page.',
    action: { to: paths.contact, label: 'Contact us' },
  },
} as const;
