/**
 * International shipping addresses (issue 26): per country, whether a state or province is
 * required (and which codes) and what a postal code looks like. Countries not listed take any
 * postal code the shipping schema accepts. The checkout checks the address before it prices.
 */

const US_STATES = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN',
  'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA',
  'WV', 'WI', 'WY', 'PR', 'GU', 'VI', 'AS', 'MP', 'AA', 'AE', 'AP',
]; // prettier-ignore
const CA_PROVINCES = ['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT'];
const AU_STATES = ['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'];

interface CountryRule {
  name: string;
  postal: RegExp;
  postalExample: string;
  /** State codes when a state is required. */
  states?: string[];
  stateLabel?: string;
}

export const COUNTRY_RULES: Record<string, CountryRule> = {
  US: { name: 'United States', postal: /^\d{5}(-\d{4})?$/, postalExample: '62701 or 62701-1234', states: US_STATES, stateLabel: 'state' },
  CA: { name: 'Canada', postal: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i, postalExample: 'K1A 0B1', states: CA_PROVINCES, stateLabel: 'province' },
  AU: { name: 'Australia', postal: /^\d{4}$/, postalExample: '2000', states: AU_STATES, stateLabel: 'state' },
  GB: { name: 'United Kingdom', postal: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, postalExample: 'N1 9GU' },
  DE: { name: 'Germany', postal: /^\d{5}$/, postalExample: '10115' },
  FR: { name: 'France', postal: /^\d{5}$/, postalExample: '75001' },
  SE: { name: 'Sweden', postal: /^\d{3} ?\d{2}$/, postalExample: '114 55' },
  NL: { name: 'Netherlands', postal: /^\d{4} ?[A-Z]{2}$/i, postalExample: '1012 AB' },
  BR: { name: 'Brazil', postal: /^\d{5}-?\d{3}$/, postalExample: '01310-100' },
  JP: { name: 'Japan', postal: /^\d{3}-?\d{4}$/, postalExample: '150-0002' },
  IT: { name: 'Italy', postal: /^\d{5}$/, postalExample: '00184' },
  ES: { name: 'Spain', postal: /^\d{5}$/, postalExample: '28013' },
};

/** The address's first problem as a sentence for the buyer, or null when it is fine. */
export function addressProblem(address: { country: string; state?: string | null; postal_code: string }): string | null {
  const country = address.country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) return 'Please choose the country.';
  const rule = COUNTRY_RULES[country];
  if (!rule) return null;
  const state = (address.state ?? '').trim().toUpperCase();
  if (rule.states && !rule.states.includes(state)) return `Please enter the ${rule.stateLabel} as its code (for example ${rule.states[0]}).`;
  if (!rule.postal.test(address.postal_code.trim())) return `Please enter a postal code of ${rule.name} (for example ${rule.postalExample}).`;
  return null;
}
