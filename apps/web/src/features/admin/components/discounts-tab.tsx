import { useState, type FormEvent } from 'react';
import { formatUsd, usdToCents } from '@storefront/domain/catalog.ts';
import { DISCOUNT_CODE_PATTERN, DISCOUNT_MESSAGES, describeDiscount, type DiscountKind, type DiscountScope } from '@storefront/domain/discounts.ts';
import { useCategories } from '../../../lib/categories.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { DataTable } from '../../../ui/data-table.tsx';
import { useAllProducts } from '../api/console-products.ts';
import { useCreateDiscountCode, useDiscountCodes, useSetDiscountCodeActive, type DiscountCode } from '../api/discount-codes.ts';
import { GiftCardsList } from './gift-cards-list.tsx';
import { LoadState } from './load-state.tsx';
import './console.css';

interface Draft {
  code: string;
  kind: DiscountKind;
  value: string;
  scope: DiscountScope;
  categoryId: string;
  productIds: string[];
  minSubtotal: string;
  startsAt: string;
  endsAt: string;
  useLimit: string;
  oncePerAccount: boolean;
}

const EMPTY: Draft = {
  code: '',
  kind: 'percent',
  value: '',
  scope: 'order',
  categoryId: '',
  productIds: [],
  minSubtotal: '',
  startsAt: '',
  endsAt: '',
  useLimit: '',
  oncePerAccount: false,
};

/** A datetime-local value (the admin's own clock) as an instant, or undefined when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
const shortDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : '—');

/** The form as the contract's input, or the first sentence that says what to fix. */
function inputOf(draft: Draft): { input: Parameters<ReturnType<typeof useCreateDiscountCode>['mutate']>[0] } | { problem: string } {
  const code = draft.code.trim();
  if (!DISCOUNT_CODE_PATTERN.test(code)) return { problem: DISCOUNT_MESSAGES.codeFormat };
  const value = draft.kind === 'percent' ? Number(draft.value) : usdToCents(draft.value);
  if (draft.kind === 'percent' && !(Number.isInteger(value) && value! >= 1 && value! <= 100)) return { problem: DISCOUNT_MESSAGES.percentRange };
  if (draft.kind === 'fixed' && !(value !== undefined && value >= 1)) return { problem: DISCOUNT_MESSAGES.amountRange };
  if (draft.scope === 'category' && !draft.categoryId) return { problem: DISCOUNT_MESSAGES.categoryNeeded };
  if (draft.scope === 'products' && draft.productIds.length === 0) return { problem: DISCOUNT_MESSAGES.productsNeeded };
  const minSubtotalCents = draft.minSubtotal.trim() ? usdToCents(draft.minSubtotal) : 0;
  if (minSubtotalCents === undefined) return { problem: 'Write the minimum subtotal in dollars, e.g. 25.00.' };
  const useLimit = draft.useLimit.trim() ? Number(draft.useLimit) : undefined;
  if (useLimit !== undefined && !(Number.isInteger(useLimit) && useLimit >= 1)) return { problem: DISCOUNT_MESSAGES.limitRange };
  if (draft.startsAt && draft.endsAt && new Date(draft.endsAt) <= new Date(draft.startsAt)) return { problem: DISCOUNT_MESSAGES.dates };
  return {
    input: {
      code,
      kind: draft.kind,
      value: value!,
      scope: draft.scope,
      ...(draft.scope === 'category' ? { categoryId: draft.categoryId } : {}),
      ...(draft.scope === 'products' ? { productIds: draft.productIds } : {}),
      minSubtotalCents,
      startsAt: instant(draft.startsAt),
      endsAt: instant(draft.endsAt),
      useLimit,
      oncePerAccount: draft.oncePerAccount,
    },
  };
}

/**
 * The label's discount codes (issue 27, decision 052): make one (percentage or fixed amount; the
 * whole order, a category or chosen products; minimum subtotal; dates; a use limit; once per
 * account), see each with its uses, and stop or restart one.
 */
export function DiscountsTab() {
  const codes = useDiscountCodes();
  const categories = useCategories();
  const products = useAllProducts();
  const create = useCreateDiscountCode();
  const setActive = useSetDiscountCodeActive();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [problem, setProblem] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const categoryName = new Map((categories.data ?? []).map((category) => [category.id, category.name]));
  const productName = new Map((products.data?.products ?? []).map((product) => [product.id, product.name]));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = inputOf(draft);
    if ('problem' in checked) {
      setProblem(checked.problem);
      return;
    }
    create.mutate(checked.input, {
      onSuccess: (made) => {
        setDraft(EMPTY);
        setProblem('');
        setAnnouncement(`Code ${made.code} created.`);
      },
      onError: (error) => setProblem(errorSentence(error, 'Could not create the code.')),
    });
  };

  const appliesTo = (code: DiscountCode) =>
    code.scope === 'order'
      ? 'Whole order'
      : code.scope === 'category'
        ? `Category: ${categoryName.get(code.categoryId ?? '') ?? code.categoryId}`
        : `Products: ${code.productIds.map((id) => productName.get(id) ?? id).join(', ')}`;

  return (
    <div className="console-discounts">
      <h2 className="console__title">Discount codes</h2>
      <p className="console__hint">
        A code lowers the goods before shipping, tax and the card fee. Uses count paid orders and card checkouts still waiting for payment (held until paid or expired). A refunded
        order keeps its use unless you give it back on the order.
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {codes.isPending || codes.isError ? (
        <LoadState query={codes} label="Loading discount codes…" lines={4} failed="Could not load the discount codes." />
      ) : codes.data.length === 0 ? (
        <p className="console__hint">No discount codes yet.</p>
      ) : (
        <div className="console-discounts__scroll" role="region" aria-label="Discount codes" tabIndex={0}>
          <DataTable
            caption="Codes"
            rows={codes.data}
            rowKey={(code) => code.id}
            columns={[
              { header: 'Code', rowHeader: true, cell: (code) => <span data-testid="discount-code">{code.code}</span> },
              { header: 'Discount', cell: (code) => describeDiscount(code) },
              { header: 'Applies to', cell: appliesTo },
              { header: 'Minimum', cell: (code) => (code.minSubtotalCents > 0 ? formatUsd(code.minSubtotalCents) : '—') },
              { header: 'Starts', cell: (code) => shortDate(code.startsAt) },
              { header: 'Ends', cell: (code) => shortDate(code.endsAt) },
              {
                header: 'Uses',
                cell: (code) => (
                  <span data-testid="discount-uses">
                    {code.usedInOrders}
                    {code.useLimit !== null ? ` of ${code.useLimit}` : ''}
                    {code.held > 0 ? ` (+${code.held} held)` : ''}
                    {code.returned > 0 ? `, ${code.returned} given back` : ''}
                  </span>
                ),
              },
              { header: 'Once per account', cell: (code) => (code.oncePerAccount ? 'Yes' : 'No') },
              { header: 'Discounted', cell: (code) => formatUsd(code.discountedCents) },
              {
                header: 'State',
                cell: (code) => (
                  <button
                    type="button"
                    className="button button--secondary button--small"
                    disabled={setActive.isPending}
                    onClick={() =>
                      setActive.mutate(
                        { codeId: code.id, active: !code.active },
                        {
                          onSuccess: () => setAnnouncement(`Code ${code.code} ${code.active ? 'stopped' : 'started again'}.`),
                          onError: (error) => setProblem(errorSentence(error, 'Could not change the code.')),
                        },
                      )
                    }
                  >
                    {code.active ? 'Stop' : 'Start again'} <span className="visually-hidden">{code.code}</span>
                  </button>
                ),
              },
            ]}
          />
        </div>
      )}

      <form className="console-discounts__form" onSubmit={submit} noValidate aria-labelledby="new-discount-title">
        <h3 id="new-discount-title">New code</h3>
        <label htmlFor="discount-code">Code</label>
        <input id="discount-code" value={draft.code} maxLength={32} autoComplete="off" spellCheck={false} onChange={(event) => set('code', event.target.value)} />
        <label htmlFor="discount-kind">Kind</label>
        <select id="discount-kind" value={draft.kind} onChange={(event) => set('kind', event.target.value as DiscountKind)}>
          <option value="percent">Percentage</option>
          <option value="fixed">Fixed amount</option>
        </select>
        <label htmlFor="discount-value">{draft.kind === 'percent' ? 'Percent off' : 'Amount off (USD)'}</label>
        <input id="discount-value" inputMode="decimal" value={draft.value} onChange={(event) => set('value', event.target.value)} />
        <label htmlFor="discount-scope">Applies to</label>
        <select id="discount-scope" value={draft.scope} onChange={(event) => set('scope', event.target.value as DiscountScope)}>
          <option value="order">The whole order</option>
          <option value="category">A category</option>
          <option value="products">Chosen products</option>
        </select>
        {draft.scope === 'category' ? (
          <>
            <label htmlFor="discount-category">Category</label>
            <select id="discount-category" value={draft.categoryId} onChange={(event) => set('categoryId', event.target.value)}>
              <option value="">Choose…</option>
              {(categories.data ?? []).map((category) => (
                <option key={category.id} value={category.id}>
                  {category.name}
                </option>
              ))}
            </select>
          </>
        ) : null}
        {draft.scope === 'products' ? (
          <fieldset className="console-discounts__products">
            <legend>Products</legend>
            {(products.data?.products ?? []).map((product) => (
              <label key={product.id}>
                <input
                  type="checkbox"
                  checked={draft.productIds.includes(product.id)}
                  onChange={(event) => set('productIds', event.target.checked ? [...draft.productIds, product.id] : draft.productIds.filter((id) => id !== product.id))}
                />{' '}
                {product.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        <label htmlFor="discount-minimum">Minimum subtotal (USD, optional)</label>
        <input id="discount-minimum" inputMode="decimal" value={draft.minSubtotal} onChange={(event) => set('minSubtotal', event.target.value)} />
        <label htmlFor="discount-starts">Starts (optional)</label>
        <input id="discount-starts" type="datetime-local" value={draft.startsAt} onChange={(event) => set('startsAt', event.target.value)} />
        <label htmlFor="discount-ends">Ends (optional)</label>
        <input id="discount-ends" type="datetime-local" value={draft.endsAt} onChange={(event) => set('endsAt', event.target.value)} />
        <label htmlFor="discount-limit">Total uses (optional)</label>
        <input id="discount-limit" inputMode="numeric" value={draft.useLimit} onChange={(event) => set('useLimit', event.target.value)} />
        <label className="console-discounts__check">
          <input type="checkbox" checked={draft.oncePerAccount} onChange={(event) => set('oncePerAccount', event.target.checked)} /> Once per account
        </label>
        <div role="alert" className="console-discounts__problem">
          {problem}
        </div>
        <button type="submit" className="button" disabled={create.isPending}>
          Create code
        </button>
      </form>

      <GiftCardsList />
    </div>
  );
}
