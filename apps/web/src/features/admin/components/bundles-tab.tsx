import { useState, type FormEvent } from 'react';
import { MAX_BUNDLE_COMPONENTS, MAX_COMPONENT_QTY } from '@storefront/domain/bundles.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { DataTable } from '../../../ui/data-table.tsx';
import { useBundles, useSaveBundle, type BundleList } from '../api/bundles.ts';
import { LoadState } from './load-state.tsx';
import './console.css';

/** A component row of the form: a product, a fixed variant or '' (the buyer picks), how many per bundle. */
interface ComponentDraft {
  key: number;
  productId: string;
  variantId: string;
  qty: string;
}

let nextKey = 1;
const newRow = (productId = '', variantId = '', qty = '1'): ComponentDraft => ({ key: nextKey++, productId, variantId, qty });

const describe = (components: BundleList['bundles'][number]['components'], products: BundleList['products']) =>
  components
    .map((component) => {
      const product = products.find((candidate) => candidate.id === component.productId);
      const variant = product?.variants.find((candidate) => candidate.id === component.variantId);
      const what =
        component.variantId === null ? `${component.name} (buyer picks)` : variant && variant.label !== product?.name ? `${component.name} - ${variant.label}` : component.name;
      return component.qty > 1 ? `${component.qty} × ${what}` : what;
    })
    .join(', ');

/**
 * Bundles (issue 27, decision 055): a released product (its name, price and images made as any
 * other) becomes a bundle of other products' variants: each component fixed, or picked by the
 * buyer (an LP and a tee in the size they choose). A bundle is sold out when a needed part is.
 */
export function BundlesTab() {
  const bundles = useBundles();
  const save = useSaveBundle();
  const [productId, setProductId] = useState('');
  const [rows, setRows] = useState<ComponentDraft[]>([newRow(), newRow()]);
  const [problem, setProblem] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const products = bundles.data?.products ?? [];
  const setRow = (key: number, change: Partial<ComponentDraft>) => setRows((current) => current.map((row) => (row.key === key ? { ...row, ...change } : row)));

  const edit = (bundle: BundleList['bundles'][number]) => {
    setProductId(bundle.productId);
    setRows(bundle.components.map((component) => newRow(component.productId, component.variantId ?? '', String(component.qty))));
    setProblem('');
    document.getElementById('bundle-product')?.focus();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!productId) return setProblem('Choose the product that becomes the bundle.');
    const chosen = rows.filter((row) => row.productId);
    if (chosen.some((row) => !/^\d+$/.test(row.qty.trim()) || Number(row.qty) < 1 || Number(row.qty) > MAX_COMPONENT_QTY)) {
      return setProblem(`Each component's quantity must be from 1 to ${MAX_COMPONENT_QTY}.`);
    }
    save.mutate(
      { productId, components: chosen.map((row) => ({ productId: row.productId, variantId: row.variantId || null, qty: Number(row.qty) })) },
      {
        onSuccess: () => {
          setProblem('');
          setAnnouncement(`Bundle ${products.find((product) => product.id === productId)?.name ?? ''} saved.`);
          setProductId('');
          setRows([newRow(), newRow()]);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not save the bundle.')),
      },
    );
  };

  return (
    <div className="console-bundles">
      <h2 className="console__title">Bundles</h2>
      <p className="console__hint">
        Release the bundle as a product first (its name, price and images), then choose what it is made of here. A component is a fixed variant, or one the buyer picks (a tee in
        their size). Buying a bundle takes every component from stock at once; it is sold out when a component it needs is.
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {bundles.isPending || bundles.isError ? (
        <LoadState query={bundles} label="Loading bundles…" lines={3} failed="Could not load the bundles." />
      ) : bundles.data.bundles.length === 0 ? (
        <p className="console__hint">No bundles yet.</p>
      ) : (
        <div className="console-discounts__scroll" role="region" aria-label="Bundles" tabIndex={0}>
          <DataTable
            caption="Bundles"
            rows={bundles.data.bundles}
            rowKey={(bundle) => bundle.productId}
            columns={[
              { header: 'Bundle', rowHeader: true, cell: (bundle) => <span data-testid="bundle-name">{bundle.name}</span> },
              { header: 'Components', cell: (bundle) => <span data-testid="bundle-components">{describe(bundle.components, products)}</span> },
              { header: 'In the shop', cell: (bundle) => (bundle.isActive ? 'Yes' : 'Withdrawn') },
              {
                header: 'Change',
                cell: (bundle) => (
                  <button type="button" className="button button--secondary button--small" onClick={() => edit(bundle)}>
                    Edit <span className="visually-hidden">{bundle.name}</span>
                  </button>
                ),
              },
            ]}
          />
        </div>
      )}

      <form className="console-discounts__form" onSubmit={submit} noValidate aria-labelledby="bundle-form-title">
        <h3 id="bundle-form-title">Make or change a bundle</h3>
        <label htmlFor="bundle-product">Product that becomes the bundle</label>
        <select id="bundle-product" value={productId} onChange={(event) => setProductId(event.target.value)}>
          <option value="">Choose…</option>
          {products.map((product) => (
            <option key={product.id} value={product.id}>
              {product.name}
              {product.bundle ? ' (bundle)' : ''}
            </option>
          ))}
        </select>
        {rows.map((row, index) => {
          const product = products.find((candidate) => candidate.id === row.productId);
          return (
            <fieldset key={row.key} className="console-bundles__component">
              <legend>Component {index + 1}</legend>
              <label htmlFor={`bundle-component-${row.key}`}>Product</label>
              <select id={`bundle-component-${row.key}`} value={row.productId} onChange={(event) => setRow(row.key, { productId: event.target.value, variantId: '' })}>
                <option value="">Choose…</option>
                {products
                  .filter((candidate) => !candidate.bundle && candidate.id !== productId)
                  .map((candidate) => (
                    <option key={candidate.id} value={candidate.id}>
                      {candidate.name}
                    </option>
                  ))}
              </select>
              <label htmlFor={`bundle-variant-${row.key}`}>Variant</label>
              <select id={`bundle-variant-${row.key}`} value={row.variantId} disabled={!product} onChange={(event) => setRow(row.key, { variantId: event.target.value })}>
                <option value="">The buyer picks</option>
                {(product?.variants ?? []).map((variant) => (
                  <option key={variant.id} value={variant.id}>
                    {variant.label}
                  </option>
                ))}
              </select>
              <label htmlFor={`bundle-qty-${row.key}`}>Per bundle</label>
              <input id={`bundle-qty-${row.key}`} inputMode="numeric" value={row.qty} onChange={(event) => setRow(row.key, { qty: event.target.value })} />
              <button
                type="button"
                className="button button--secondary button--small"
                onClick={() => setRows((current) => current.filter((candidate) => candidate.key !== row.key))}
              >
                Remove <span className="visually-hidden">component {index + 1}</span>
              </button>
            </fieldset>
          );
        })}
        <button type="button" className="button button--secondary" disabled={rows.length >= MAX_BUNDLE_COMPONENTS} onClick={() => setRows((current) => [...current, newRow()])}>
          Add component
        </button>
        <div role="alert" className="console-discounts__problem">
          {problem}
        </div>
        <button type="submit" className="button" disabled={save.isPending}>
          Save bundle
        </button>
      </form>
    </div>
  );
}
