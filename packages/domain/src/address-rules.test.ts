import { describe, expect, it } from 'vitest';
import { addressProblem } from './address-rules.ts';

describe('international address rules', () => {
  it.each([
    [{ country: 'US', state: 'IL', postal_code: '62701' }, null],
    [{ country: 'US', state: 'il', postal_code: '62701-1234' }, null],
    [{ country: 'US', state: '', postal_code: '62701' }, 'Please enter the state as its code (for example AL).'],
    [{ country: 'US', state: 'IL', postal_code: '1' }, 'Please enter a postal code of United States (for example 62701 or 62701-1234).'],
    [{ country: 'CA', state: 'ON', postal_code: 'K1A 0B1' }, null],
    [{ country: 'CA', state: 'XX', postal_code: 'K1A 0B1' }, 'Please enter the province as its code (for example AB).'],
    [{ country: 'GB', state: '', postal_code: 'N1 9GU' }, null],
    [{ country: 'GB', state: '', postal_code: '77002' }, 'Please enter a postal code of United Kingdom (for example N1 9GU).'],
    [{ country: 'DE', state: null, postal_code: '10115' }, null],
    [{ country: 'DE', postal_code: '1011' }, 'Please enter a postal code of Germany (for example 10115).'],
    [{ country: 'JP', state: '', postal_code: '150-0002' }, null],
    [{ country: 'NZ', state: '', postal_code: 'anything' }, null],
    [{ country: 'U1', state: '', postal_code: '1' }, 'Please choose the country.'],
  ])('%j: %s', (address, problem) => expect(addressProblem(address)).toBe(problem));
});
