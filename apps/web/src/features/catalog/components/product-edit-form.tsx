import { useEffect, type FormEvent } from 'react';
import { RELEASE_MESSAGES, type Product } from '@storefront/domain/catalog.ts';
import { variantFormRows } from '@storefront/domain/variants.ts';
import { toast } from '../../../lib/toast.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { ProductFormActions, useProductForm, type ProductFormPhase } from '../../../ui/product-form/use-product-form.tsx';
import { variantsFormOf } from '../../../ui/product-form/variants-editor.tsx';
import { useEditProduct } from '../api/edit-product.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

const PHASE_LABELS: Record<ProductFormPhase, string> = { idle: '', uploading: 'Uploading images…', sending: 'Saving…' };

function priceText(cents: number): string {
  return Number.isFinite(cents) ? centsToDecimal(cents) : '';
}

/**
 * Edit mode of the product page (spec sections 2, 4 and 5): the release form's rules with
 * 'Please include at least one image.', problems and failures as toasts, new images
 * uploaded on Save with a progress bar each, 'Product updated' on success.
 */
export function ProductEditForm({ product, onDone, onCancel }: { product: Product; onDone: () => void; onCancel: () => void }) {
  const edit = useEditProduct();
  const form = useProductForm({
    mode: 'edit',
    fields: {
      name: product.name,
      price: priceText(product.priceCents),
      description: product.description,
      category: product.category,
      weight: product.weightGrams === null || product.weightGrams === undefined ? '' : String(product.weightGrams),
      releaseDate: product.releaseDate ?? '',
    },
    variants: variantsFormOf(product.options, variantFormRows(product)),
    images: product.images,
    report: (problem) => {
      if (problem) toast.error(problem);
    },
  });
  const nameField = form.refs.name;

  useEffect(() => {
    // Edit mode opens on a click of Edit: the keyboard continues in the form.
    nameField.current?.focus();
  }, [nameField]);

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void form.submit(
      async (input) => {
        const result = await edit.mutateAsync({ id: product.id, ...input });
        if (result?.ok !== true) {
          toast.error(RELEASE_MESSAGES.editFailed);
          return;
        }
        toast.success(RELEASE_MESSAGES.updated);
        onDone();
        return 'done';
      },
      (error) => {
        console.warn(`Could not save product ${product.id}:`, error);
        toast.error(errorSentence(error, RELEASE_MESSAGES.saveFailed));
      },
    );
  };

  return (
    <form className="product-form" aria-label="Edit product" aria-busy={form.busy || undefined} noValidate onSubmit={save}>
      <h2 className="product-form__title">Edit product</h2>
      {form.editor}
      <ProductFormActions busy={form.busy} busyLabel={PHASE_LABELS[form.phase]} idleLabel="Save Changes">
        <button type="button" className="button button--secondary" disabled={form.busy} onClick={onCancel}>
          Cancel
        </button>
      </ProductFormActions>
    </form>
  );
}
