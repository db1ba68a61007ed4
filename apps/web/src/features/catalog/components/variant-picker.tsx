import { useId } from 'react';
import type { Product } from '@storefront/domain/catalog.ts';
import { isSoldOut, sameValues, type Variant } from '@storefront/domain/variants.ts';

/**
 * One group of buttons per option (issue 15): a value is disabled when the variant it
 * would pick, with the other choices kept, is sold out. Radio inputs, so the arrow keys
 * move within an option and Tab between options. `disabled` holds every value (the page has
 * not hydrated yet).
 */
export function VariantPicker({ product, chosen, onChange, disabled = false }: { product: Product; chosen: string[]; onChange: (values: string[]) => void; disabled?: boolean }) {
  const id = useId();
  const variantFor = (values: string[]): Variant | undefined => product.variants.find((variant) => sameValues(variant.options, values));
  return (
    <div className="variant-picker">
      {product.options.map((option, index) =>
        // A bundle's component with one variant (issue 39): nothing to pick, so no picker; its value stays chosen.
        product.includes && option.values.length < 2 ? null : (
          <fieldset key={option.name} className="variant-picker__option" disabled={disabled}>
            <legend className="variant-picker__legend">{option.name}</legend>
            <div className="variant-picker__values">
              {option.values.map((value) => {
                const values = product.options.map((_, i) => (i === index ? value : (chosen[i] ?? '')));
                const variant = variantFor(values);
                const complete = values.every(Boolean);
                const soldOut = complete ? !variant || isSoldOut(variant) : product.variants.filter((v) => v.options[index] === value).every(isSoldOut);
                return (
                  <label key={value} className={`variant-picker__value${soldOut ? ' variant-picker__value--sold-out' : ''}`}>
                    <input
                      type="radio"
                      name={`${id}-${index}`}
                      value={value}
                      checked={chosen[index] === value}
                      disabled={soldOut}
                      onChange={() => onChange(product.options.map((_, i) => (i === index ? value : (chosen[i] ?? ''))))}
                    />
                    <span>{value}</span>
                    {soldOut ? <span className="visually-hidden"> (sold out)</span> : null}
                  </label>
                );
              })}
            </div>
          </fieldset>
        ),
      )}
    </div>
  );
}
