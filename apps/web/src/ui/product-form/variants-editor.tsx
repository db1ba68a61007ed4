import { useId } from 'react';
import {
  combinations,
  MAX_OPTIONS,
  optionsFromForm,
  optionsProblem,
  variantKey,
  variantLabel,
  type OptionForm,
  type ProductOption,
  type VariantForm,
} from '@storefront/domain/variants.ts';
import { ProductField } from './product-fields.tsx';
import './product-form.css';

/** The options and variant rows an admin is typing (issue 15). */
export interface VariantsFormValues {
  options: OptionForm[];
  rows: Record<string, VariantForm>;
}

export const EMPTY_VARIANTS_FORM: VariantsFormValues = { options: [], rows: {} };

/** The form of a product being edited: its options as typed text, its rows by option values. */
export function variantsFormOf(options: readonly ProductOption[], rows: Record<string, VariantForm>): VariantsFormValues {
  return { options: options.map((option) => ({ name: option.name, values: option.values.join(', ') })), rows };
}

const EMPTY_ROW: VariantForm = { sku: '', price: '', stock: '' };

/** An option's two inputs: its name and its comma-separated values. */
const OPTION_FIELDS = [
  { field: 'name', idPart: 'option', placeholder: 'Size', maxLength: 40 },
  { field: 'values', idPart: 'values', placeholder: 'S, M, L, XL' },
] as const;

/** A variant row's inputs, in column order: the field, the start of its label, and its own attributes. */
const VARIANT_CELLS = [
  { field: 'sku', name: 'SKU', maxLength: 64 },
  { field: 'price', name: 'Price', inputMode: 'decimal', placeholder: 'Product price' },
  { field: 'stock', name: 'Stock', inputMode: 'numeric', placeholder: 'Unlimited' },
  { field: 'limit', name: 'Limit per customer', inputMode: 'numeric', placeholder: 'No limit' },
  { field: 'weight', name: 'Weight in grams', inputMode: 'numeric', placeholder: 'Not weighed' },
  // A variant's own street date (decision 054); offered only for products with options.
  { field: 'releaseDate', name: 'Release date', type: 'date' },
] as const;

interface VariantsEditorProps {
  values: VariantsFormValues;
  onChange: (values: VariantsFormValues) => void;
  disabled?: boolean;
}

/**
 * Options (up to 3, values separated by commas) and one row per combination with its SKU,
 * an optional price override and a stock count (empty: unlimited). Without options the one
 * row is the product's default variant. Rows are kept by their option values, so adding a
 * value keeps what was typed for the others. The server checks it all again (zod).
 */
export function VariantsEditor({ values, onChange, disabled = false }: VariantsEditorProps) {
  const id = useId();
  const options = optionsFromForm(values.options);
  const problem = values.options.length > 0 ? optionsProblem(options) : undefined;
  const combos = problem ? [] : combinations(options);

  const setOption = (index: number, field: keyof OptionForm, text: string) =>
    onChange({ ...values, options: values.options.map((option, i) => (i === index ? { ...option, [field]: text } : option)) });
  const addOption = () => onChange({ ...values, options: [...values.options, { name: '', values: '' }] });
  const removeOption = (index: number) => onChange({ ...values, options: values.options.filter((_, i) => i !== index) });
  const cells = options.length > 0 ? VARIANT_CELLS : VARIANT_CELLS.filter((cell) => cell.field !== 'releaseDate');
  const setRow = (key: string, field: (typeof VARIANT_CELLS)[number]['field'], text: string) =>
    onChange({ ...values, rows: { ...values.rows, [key]: { ...(values.rows[key] ?? EMPTY_ROW), [field]: text } } });

  return (
    <fieldset className="field-group variants-editor" disabled={disabled}>
      <legend className="product-field__label">Options and stock</legend>
      <p className="product-field__hint">
        Up to {MAX_OPTIONS} options, e.g. Size with values S, M, L. Each combination is a variant. Leave a price empty for the product’s price, a stock empty for unlimited (print
        on demand, digital), a limit empty to let a customer buy any number (a drop: “limit 2 per customer”), and give a weight in grams (one unit, packed) where shipping is
        charged by weight.
      </p>
      {values.options.map((option, index) => (
        <div key={index} className="variants-editor__option" role="group" aria-label={`Option ${index + 1}`}>
          {OPTION_FIELDS.map(({ field, idPart, ...input }) => (
            <ProductField key={field} id={`${id}-${idPart}-${index}`} label={`Option ${index + 1} ${field}`}>
              <input
                id={`${id}-${idPart}-${index}`}
                className="field-control product-field__control"
                value={option[field]}
                onChange={(event) => setOption(index, field, event.target.value)}
                autoComplete="off"
                {...input}
              />
            </ProductField>
          ))}
          <button type="button" className="button button--secondary variants-editor__remove" onClick={() => removeOption(index)}>
            Remove option {index + 1}
          </button>
        </div>
      ))}
      {values.options.length < MAX_OPTIONS ? (
        <button type="button" className="button button--secondary variants-editor__add" onClick={addOption}>
          Add option
        </button>
      ) : null}
      {problem ? (
        <p className="product-field__hint" role="status">
          {problem}
        </p>
      ) : (
        <div className={options.length > 0 ? 'variants-editor__rows variants-editor__rows--dated' : 'variants-editor__rows'} role="table" aria-label="Variants">
          <div role="row" className="variants-editor__row variants-editor__row--head">
            <span role="columnheader">Variant</span>
            <span role="columnheader">SKU</span>
            <span role="columnheader">Price (USD)</span>
            <span role="columnheader">Stock</span>
            <span role="columnheader">Limit per customer</span>
            <span role="columnheader">Weight (g)</span>
            {options.length > 0 ? <span role="columnheader">Release date</span> : null}
          </div>
          {combos.map((combo) => {
            const key = variantKey(combo);
            const row = values.rows[key] ?? EMPTY_ROW;
            const label = combo.length > 0 ? variantLabel(combo) : 'Default';
            return (
              <div role="row" key={key} className="variants-editor__row">
                <span role="rowheader" className="variants-editor__label">
                  {label}
                </span>
                {cells.map(({ field, name, ...input }) => (
                  <span role="cell" key={field}>
                    <input
                      className="field-control product-field__control"
                      aria-label={`${name} of ${label}`}
                      value={row[field] ?? ''}
                      onChange={(event) => setRow(key, field, event.target.value)}
                      autoComplete="off"
                      {...input}
                    />
                  </span>
                ))}
              </div>
            );
          })}
        </div>
      )}
    </fieldset>
  );
}
