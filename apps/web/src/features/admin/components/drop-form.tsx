import { useId, useState, type FormEvent } from 'react';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { DROP_MESSAGES, DROP_SLUG_PATTERN } from '@storefront/domain/drops.ts';
import { lineName } from '@storefront/domain/variants.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useAllProducts } from '../api/console-products.ts';
import type { ConsoleDrop } from '../api/drops.ts';

/** The label's drop form, as typed: numbers and times are text until checked. */
export interface DropDraft {
  name: string;
  slug: string;
  variantIds: string[];
  startsAt: string;
  queueOpensAt: string;
  perCustomerLimit: string;
  admissionsPerMinute: string;
  maxAdmitted: string;
  checkoutWindowSeconds: string;
  challenge: boolean;
}

export const EMPTY_DROP: DropDraft = {
  name: '',
  slug: '',
  variantIds: [],
  startsAt: '',
  queueOpensAt: '',
  perCustomerLimit: '1',
  admissionsPerMinute: '60',
  maxAdmitted: '100',
  checkoutWindowSeconds: '300',
  challenge: true,
};

/** An instant as a datetime-local value in the admin's own clock (to the second). */
export function localInput(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function draftOf(drop: ConsoleDrop): DropDraft {
  return {
    name: drop.name,
    slug: drop.slug,
    variantIds: drop.items.map((item) => item.variantId),
    startsAt: localInput(drop.startsAt),
    queueOpensAt: localInput(drop.queueOpensAt),
    perCustomerLimit: String(drop.perCustomerLimit),
    admissionsPerMinute: String(drop.admissionsPerMinute),
    maxAdmitted: String(drop.maxAdmitted),
    checkoutWindowSeconds: String(drop.checkoutWindowSeconds),
    challenge: drop.challenge,
  };
}

type Checked = { input: FunctionInput<'scheduleDrop'> } | { problem: string; field: keyof DropDraft };

const whole = (text: string, min: number, max: number) => {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
};

/** The form as scheduleDrop's input, or the first thing to fix (the domain's own sentences). */
export function checkDraft(draft: DropDraft): Checked {
  if (!draft.name.trim()) return { problem: DROP_MESSAGES.name, field: 'name' };
  if (!DROP_SLUG_PATTERN.test(draft.slug.trim())) return { problem: DROP_MESSAGES.slugFormat, field: 'slug' };
  if (draft.variantIds.length === 0) return { problem: DROP_MESSAGES.variantsNeeded, field: 'variantIds' };
  if (!draft.startsAt || Number.isNaN(Date.parse(draft.startsAt))) return { problem: 'Choose when the drop starts.', field: 'startsAt' };
  if (!draft.queueOpensAt || Number.isNaN(Date.parse(draft.queueOpensAt))) return { problem: 'Choose when the queue opens.', field: 'queueOpensAt' };
  const startsAt = new Date(draft.startsAt).toISOString();
  const queueOpensAt = new Date(draft.queueOpensAt).toISOString();
  if (Date.parse(queueOpensAt) >= Date.parse(startsAt)) return { problem: DROP_MESSAGES.queueOpensBeforeStart, field: 'queueOpensAt' };
  const perCustomerLimit = whole(draft.perCustomerLimit, 1, 100);
  if (perCustomerLimit === undefined) return { problem: DROP_MESSAGES.limitRange, field: 'perCustomerLimit' };
  const admissionsPerMinute = whole(draft.admissionsPerMinute, 1, 100_000);
  if (admissionsPerMinute === undefined) return { problem: DROP_MESSAGES.rateRange, field: 'admissionsPerMinute' };
  const maxAdmitted = whole(draft.maxAdmitted, 1, 100_000);
  if (maxAdmitted === undefined) return { problem: DROP_MESSAGES.maxAdmittedRange, field: 'maxAdmitted' };
  const checkoutWindowSeconds = whole(draft.checkoutWindowSeconds, 60, 3600);
  if (checkoutWindowSeconds === undefined) return { problem: DROP_MESSAGES.windowRange, field: 'checkoutWindowSeconds' };
  return {
    input: {
      name: draft.name.trim(),
      slug: draft.slug.trim(),
      variantIds: draft.variantIds,
      startsAt,
      queueOpensAt,
      perCustomerLimit,
      admissionsPerMinute,
      maxAdmitted,
      checkoutWindowSeconds,
      challenge: draft.challenge,
    },
  };
}

/**
 * The drop's form (schedule, or edit a scheduled or postponed drop): its products or variants,
 * the start and the pre-queue's opening, the limit, the pace, the checkout window and the bot
 * check. `onSubmit` gets the checked input and answers with the server's refusal, if any.
 */
export function DropForm({
  initial,
  submitLabel,
  busy,
  onSubmit,
}: {
  initial: DropDraft;
  submitLabel: string;
  busy: boolean;
  onSubmit: (input: FunctionInput<'scheduleDrop'>, done: (error?: unknown) => void) => void;
}) {
  const id = useId();
  const products = useAllProducts();
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<{ text: string; field?: keyof DropDraft }>({ text: '' });
  const set = <K extends keyof DropDraft>(key: K, value: DropDraft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const fieldId = (field: keyof DropDraft) => `${id}-${field}`;
  const toggle = (ids: string[], on: boolean) => set('variantIds', on ? [...new Set([...draft.variantIds, ...ids])] : draft.variantIds.filter((v) => !ids.includes(v)));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = checkDraft(draft);
    if ('problem' in checked) {
      setProblem({ text: checked.problem, field: checked.field });
      document.getElementById(fieldId(checked.field))?.focus();
      return;
    }
    setProblem({ text: '' });
    onSubmit(checked.input, (error) => setProblem({ text: error ? errorSentence(error, 'Could not save the drop.') : '' }));
  };

  const invalid = (field: keyof DropDraft) => (problem.field === field ? true : undefined);
  const number = (field: 'perCustomerLimit' | 'admissionsPerMinute' | 'maxAdmitted' | 'checkoutWindowSeconds', label: string) => (
    <>
      <label htmlFor={fieldId(field)}>{label}</label>
      <input id={fieldId(field)} inputMode="numeric" value={draft[field]} aria-invalid={invalid(field)} onChange={(event) => set(field, event.target.value)} />
    </>
  );

  const catalogue = (products.data?.products ?? []).filter((product) => !product.includes || product.includes.length === 0);
  return (
    <form className="console-discounts__form console-drops__form" onSubmit={submit} noValidate>
      <label htmlFor={fieldId('name')}>Name</label>
      <input id={fieldId('name')} value={draft.name} maxLength={120} aria-invalid={invalid('name')} onChange={(event) => set('name', event.target.value)} />
      <label htmlFor={fieldId('slug')}>Address (/drops/…)</label>
      <input
        id={fieldId('slug')}
        value={draft.slug}
        maxLength={64}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={invalid('slug')}
        aria-describedby={`${id}-slug-hint`}
        onChange={(event) => set('slug', event.target.value.toLowerCase())}
      />
      <p id={`${id}-slug-hint`} className="console__hint">
        Lower-case letters, digits and dashes.
      </p>
      <fieldset id={fieldId('variantIds')} tabIndex={-1} className="console-drops__products" aria-invalid={invalid('variantIds')}>
        <legend>Products or variants in the drop</legend>
        {products.isPending ? <p>Loading the products…</p> : null}
        {products.isError ? <p role="alert">{errorSentence(products.error, 'Could not load the products.')}</p> : null}
        {catalogue.map((product) => {
          const ids = product.variants.map((variant) => variant.id);
          const all = ids.every((v) => draft.variantIds.includes(v));
          return (
            <div key={product.id} className="console-drops__product">
              <label>
                <input type="checkbox" checked={all} onChange={(event) => toggle(ids, event.target.checked)} /> {product.name}
                {product.variants.length === 1 ? ` (${product.variants[0]!.stock === null ? 'no stock count' : `${product.variants[0]!.stock} in stock`})` : ''}
              </label>
              {product.variants.length > 1 ? (
                <div className="console-drops__variants">
                  {product.variants.map((variant) => (
                    <label key={variant.id}>
                      <input type="checkbox" checked={draft.variantIds.includes(variant.id)} onChange={(event) => toggle([variant.id], event.target.checked)} />{' '}
                      {lineName(product.name, variant.options)} ({variant.stock === null ? 'no stock count' : `${variant.stock} in stock`})
                    </label>
                  ))}
                </div>
              ) : null}
            </div>
          );
        })}
      </fieldset>
      <label htmlFor={fieldId('startsAt')}>Starts</label>
      <input
        id={fieldId('startsAt')}
        type="datetime-local"
        step={1}
        value={draft.startsAt}
        aria-invalid={invalid('startsAt')}
        onChange={(event) => set('startsAt', event.target.value)}
      />
      <label htmlFor={fieldId('queueOpensAt')}>Queue opens (the pre-queue; before the start)</label>
      <input
        id={fieldId('queueOpensAt')}
        type="datetime-local"
        step={1}
        value={draft.queueOpensAt}
        aria-invalid={invalid('queueOpensAt')}
        onChange={(event) => set('queueOpensAt', event.target.value)}
      />
      {number('perCustomerLimit', 'Limit per customer')}
      {number('admissionsPerMinute', 'Admissions per minute')}
      {number('maxAdmitted', 'Most fans admitted at once')}
      {number('checkoutWindowSeconds', 'Checkout window (seconds, 60 to 3600)')}
      <label className="console-discounts__check">
        <input type="checkbox" checked={draft.challenge} onChange={(event) => set('challenge', event.target.checked)} /> Bot check on joining (proof of work)
      </label>
      <div role="alert" className="console-discounts__problem">
        {problem.text}
      </div>
      <button type="submit" className="button" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
