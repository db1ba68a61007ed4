/** Texts of the release page that the spec leaves to us (its own are RELEASE_MESSAGES). */
export const RELEASE_PAGE_TEXTS = {
  notAdmin: 'Only the label’s admins can release products.',
  released: 'Product released',
  viewReleased: 'View the product',
} as const;
