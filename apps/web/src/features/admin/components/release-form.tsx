import { useState, type FormEvent } from 'react';
import { Link } from '../../../lib/router.tsx';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { EMPTY_PRODUCT_FIELDS } from '../../../ui/product-form/product-fields.tsx';
import { ProductFormActions, useProductForm, type ProductFormPhase } from '../../../ui/product-form/use-product-form.tsx';
import { EMPTY_VARIANTS_FORM } from '../../../ui/product-form/variants-editor.tsx';
import { useReleaseProduct } from '../api/release-product.ts';
import { RELEASE_PAGE_TEXTS } from '../messages.ts';
import { paths } from '../../../lib/paths.ts';

const PHASE_LABELS: Record<ProductFormPhase, string> = { idle: '', uploading: 'Uploading images…', sending: 'Releasing…' };

/**
 * The Release Product tab (spec sections 2 and 5): the checks in the spec's order with its
 * messages in an alert, the images uploaded on Release (a progress bar each), then
 * releaseBizarreProduct; on success the form starts over.
 */
export function ReleaseForm() {
  const release = useReleaseProduct();
  const [problem, setProblem] = useState<string | null>(null);
  const [released, setReleased] = useState<{ id: string | null; name: string } | null>(null);
  const form = useProductForm({ mode: 'release', fields: EMPTY_PRODUCT_FIELDS, variants: EMPTY_VARIANTS_FORM, report: setProblem });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (form.busy) return;
    setReleased(null);
    void form.submit(
      async (input) => {
        const result = await release.mutateAsync(input);
        if (result?.ok !== true) {
          setProblem(RELEASE_MESSAGES.releaseNotOk);
        } else {
          setReleased({ id: typeof result.id === 'string' ? result.id : null, name: input.name });
          form.reset({ fields: EMPTY_PRODUCT_FIELDS, variants: EMPTY_VARIANTS_FORM });
        }
      },
      (error) => {
        console.warn('Could not release the product:', error);
        setProblem(errorSentence(error, RELEASE_MESSAGES.releaseFailed));
      },
    );
  };

  return (
    <form className="release-form" aria-label="Release a product" aria-busy={form.busy || undefined} noValidate onSubmit={submit}>
      <h2 className="release-form__title">Release Product</h2>
      {form.editor}
      {/* Always in the page, so a screen reader announces every new message. */}
      <div className="product-form-messages">
        <div role="alert" className="notice notice--error product-form-message">
          {problem}
        </div>
        <div role="status" className="notice notice--success product-form-message">
          {released ? (
            <>
              {RELEASE_PAGE_TEXTS.released}: {released.name}. {released.id ? <Link to={paths.product(released.id)}>{RELEASE_PAGE_TEXTS.viewReleased}</Link> : null}
            </>
          ) : null}
        </div>
      </div>
      <ProductFormActions busy={form.busy} busyLabel={PHASE_LABELS[form.phase]} idleLabel="Release Product" />
    </form>
  );
}
