import { useId, useRef, type ReactNode, type RefObject } from 'react';
import { DEFAULT_CATEGORY, RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { useCategories } from '../../lib/categories.ts';
import './product-form.css';

/** What an admin types for a product; the price stays text until it is checked. */
export interface ProductFieldValues {
  name: string;
  price: string;
  description: string;
  /** The category's id (issue 29 item 3): the shop's filter lists the product there. */
  category: string;
  /** Default weight of one unit in grams (decision 060); empty: none. */
  weight?: string;
  /** A preorder's street date, YYYY-MM-DD (decision 054); empty: out now. */
  releaseDate?: string;
}

export const EMPTY_PRODUCT_FIELDS: ProductFieldValues = { name: '', price: '', description: '', category: DEFAULT_CATEGORY };

export interface ProductFieldRefs {
  name: RefObject<HTMLInputElement | null>;
  price: RefObject<HTMLInputElement | null>;
  description: RefObject<HTMLTextAreaElement | null>;
  /** The image manager's file input. */
  images: RefObject<HTMLInputElement | null>;
}

/**
 * Refs to a product form's fields, and a way to put keyboard focus on the field a check
 * complained about (the messages of productFormProblem).
 */
export function useProductFieldRefs() {
  const refs: ProductFieldRefs = {
    name: useRef<HTMLInputElement>(null),
    price: useRef<HTMLInputElement>(null),
    description: useRef<HTMLTextAreaElement>(null),
    images: useRef<HTMLInputElement>(null),
  };
  const focusProblem = (problem: string) => {
    const targets: Record<string, RefObject<HTMLElement | null>> = {
      [RELEASE_MESSAGES.name]: refs.name,
      [RELEASE_MESSAGES.description]: refs.description,
      [RELEASE_MESSAGES.price]: refs.price,
      [RELEASE_MESSAGES.releaseImages]: refs.images,
      [RELEASE_MESSAGES.editImages]: refs.images,
    };
    targets[problem]?.current?.focus();
  };
  return { refs, focusProblem };
}

interface ProductFieldsProps {
  values: ProductFieldValues;
  onChange: (values: ProductFieldValues) => void;
  disabled?: boolean;
  refs?: Omit<ProductFieldRefs, 'images'>;
}

/**
 * Name, price (USD) and description of a product, shared by the release and edit forms.
 * No `required` or `pattern`: the forms run the spec's checks in the spec's order.
 */
export function ProductFields({ values, onChange, disabled = false, refs }: ProductFieldsProps) {
  const id = useId();
  const set = (field: keyof ProductFieldValues) => (event: { target: { value: string } }) => onChange({ ...values, [field]: event.target.value });
  const categories = useCategories();
  // The product's own category is listed even before the list has loaded (or if it was just removed).
  const choices = categories.data?.some((category) => category.id === values.category)
    ? categories.data
    : [...(categories.data ?? []), { id: values.category, name: values.category }];
  return (
    <div className="product-fields">
      <ProductField id={`${id}-name`} label="Name">
        <input
          ref={refs?.name}
          id={`${id}-name`}
          className="field-control product-field__control"
          value={values.name}
          onChange={set('name')}
          maxLength={120}
          autoComplete="off"
          disabled={disabled}
        />
      </ProductField>
      <ProductField id={`${id}-price`} label="Price (USD)">
        <div className="product-field__money">
          <span aria-hidden="true">$</span>
          <input
            ref={refs?.price}
            id={`${id}-price`}
            className="field-control product-field__control"
            value={values.price}
            onChange={set('price')}
            inputMode="decimal"
            placeholder="0.00"
            autoComplete="off"
            aria-describedby={`${id}-price-hint`}
            disabled={disabled}
          />
        </div>
        <p id={`${id}-price-hint`} className="product-field__hint">
          In US dollars, e.g. 24.99; rounded to whole cents.
        </p>
      </ProductField>
      <ProductField id={`${id}-weight`} label="Default weight (g)">
        <input
          id={`${id}-weight`}
          className="field-control product-field__control"
          value={values.weight ?? ''}
          onChange={set('weight')}
          inputMode="numeric"
          placeholder="Not weighed"
          autoComplete="off"
          aria-describedby={`${id}-weight-hint`}
          disabled={disabled}
        />
        <p id={`${id}-weight-hint`} className="product-field__hint">
          One unit, packed, for shipping by weight; a variant without its own weight weighs this.
        </p>
      </ProductField>
      <ProductField id={`${id}-category`} label="Category">
        <select id={`${id}-category`} className="field-control product-field__control" value={values.category} onChange={set('category')} disabled={disabled}>
          {choices.map((category) => (
            <option key={category.id} value={category.id}>
              {category.name}
            </option>
          ))}
        </select>
      </ProductField>
      <ProductField id={`${id}-release-date`} label="Release date (preorder)">
        <input
          id={`${id}-release-date`}
          type="date"
          className="field-control product-field__control"
          value={values.releaseDate ?? ''}
          onChange={set('releaseDate')}
          disabled={disabled}
          aria-describedby={`${id}-release-date-hint`}
        />
        <p id={`${id}-release-date-hint`} className="product-field__hint">
          A future street date sells it as a preorder; leave empty for an item that is out.
        </p>
      </ProductField>
      {/* An input and a text area: alike in their attribute lists by design, each element keeps its own limits. */}
      <ProductField id={`${id}-description`} label="Description" wide>
        <textarea
          ref={refs?.description}
          id={`${id}-description`}
          className="field-control product-field__control product-field__control--text"
          value={values.description}
          onChange={set('description')}
          rows={5}
          maxLength={5000}
          disabled={disabled}
        />
      </ProductField>
    </div>
  );
}

/** One labelled field of the product form (and of its options); `wide` spans the whole row. */
export function ProductField({ id, label, wide = false, children }: { id: string; label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? 'product-field product-field--wide' : 'product-field'}>
      <label htmlFor={id} className="product-field__label">
        {label}
      </label>
      {children}
    </div>
  );
}
