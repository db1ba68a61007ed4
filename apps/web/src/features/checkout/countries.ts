/** Where the shop ships: the signup form's countries (spec section 5), as ISO 3166-1 alpha-2 codes. */
// A table of data: its { code, name } rows look like the console's tab and page lists by design, nothing to share.
export const SHIPPING_COUNTRIES: readonly { code: string; name: string }[] = [
  { code: 'US', name: 'United States' },
  { code: 'GB', name: 'United Kingdom' },
  { code: 'CA', name: 'Canada' },
  { code: 'AU', name: 'Australia' },
  { code: 'DE', name: 'Germany' },
  { code: 'SE', name: 'Sweden' },
  { code: 'FR', name: 'France' },
  { code: 'BR', name: 'Brazil' },
  { code: 'JP', name: 'Japan' },
  { code: 'NL', name: 'Netherlands' },
  { code: 'IT', name: 'Italy' },
  { code: 'ES', name: 'Spain' },
];

export const DEFAULT_COUNTRY = 'US';
