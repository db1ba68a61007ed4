import { useEffect, useState, type FormEvent } from 'react';
import { MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, productFormProblem, RELEASE_MESSAGES, usdToCents, type Product } from '@storefront/domain/catalog.ts';
import { variantFormRows, variantsFromForm } from '@storefront/domain/variants.ts';
import { toast } from '../../../lib/toast.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { skippedFilesNotice, useImageList } from '../../../lib/use-image-list.ts';
import { ImageManager } from '../../../ui/image-manager/image-manager.tsx';
import { ProductFields, useProductFieldRefs, type ProductFieldValues } from '../../../ui/product-form/product-fields.tsx';
import { VariantsEditor, variantsFormOf, type VariantsFormValues } from '../../../ui/product-form/variants-editor.tsx';
import { useEditProduct } from '../api/edit-product.ts';

type Phase = 'idle' | 'uploading' | 'saving';

const PHASE_LABELS: Record<Phase, string> = { idle: '', uploading: 'Uploading images…', saving: 'Saving…' };

function priceText(cents: number): string {
  return Number.isFinite(cents) ? (cents / 100).toFixed(2) : '';
}

/**
 * Edit mode of the product page (spec sections 2, 4 and 5): the release form's rules with
 * 'Please include at least one image.', problems and failures as toasts, new images
 * uploaded on Save with a progress bar each, 'Product updated' on success.
 */
export function ProductEditForm({ product, onDone, onCancel }: { product: Product; onDone: () => void; onCancel: () => void }) {
  const [fields, setFields] = useState<ProductFieldValues>(() => ({
    name: product.name,
    price: priceText(product.priceCents),
    description: product.description,
  }));
  const [variantsForm, setVariantsForm] = useState<VariantsFormValues>(() => variantsFormOf(product.options, variantFormRows(product)));
  const images = useImageList(product.images);
  const edit = useEditProduct();
  const [phase, setPhase] = useState<Phase>('idle');
  const { refs, focusProblem } = useProductFieldRefs();
  const nameField = refs.name;
  const busy = phase !== 'idle';

  useEffect(() => {
    // Edit mode opens on a click of Edit: the keyboard continues in the form.
    nameField.current?.focus();
  }, [nameField]);

  const addFiles = (files: File[]) => {
    const notice = skippedFilesNotice(images.add(files));
    if (notice) toast.warning(notice);
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const problem = productFormProblem({ ...fields, imageCount: images.entries.length }, 'edit');
    if (problem) {
      toast.error(problem);
      focusProblem(problem);
      return;
    }
    // Issue 15: a stock left as loaded keeps the live count (sales since the form opened stay sold).
    const variants = variantsFromForm(variantsForm.options, variantsForm.rows, usdToCents, MAX_PRICE_CENTS);
    if ('problem' in variants) {
      toast.error(variants.problem);
      return;
    }
    try {
      setPhase('uploading');
      const urls = await images.uploadAll();
      setPhase('saving');
      const result = await edit.mutateAsync({
        id: product.id,
        name: fields.name.trim(),
        description: fields.description.trim(),
        priceCents: usdToCents(fields.price) ?? 0,
        images: urls,
        options: variants.options,
        variants: variants.variants,
      });
      if (result?.ok !== true) {
        toast.error(RELEASE_MESSAGES.editFailed);
        setPhase('idle');
        return;
      }
      toast.success(RELEASE_MESSAGES.updated);
      onDone();
    } catch (error) {
      console.warn(`Could not save product ${product.id}:`, error);
      toast.error(errorSentence(error, RELEASE_MESSAGES.saveFailed));
      setPhase('idle');
    }
  };

  return (
    <form className="product-form" aria-label="Edit product" aria-busy={busy || undefined} noValidate onSubmit={(event) => void save(event)}>
      <h2 className="product-form__title">Edit product</h2>
      <ProductFields values={fields} onChange={setFields} disabled={busy} refs={refs} />
      <ImageManager
        label="Images"
        images={images.images}
        maxImages={MAX_PRODUCT_IMAGES}
        disabled={busy}
        onAddFiles={addFiles}
        onMove={images.move}
        onRemove={images.remove}
        inputRef={refs.images}
      />
      <VariantsEditor values={variantsForm} onChange={setVariantsForm} disabled={busy} />
      <p role="status" className="visually-hidden">
        {PHASE_LABELS[phase]}
      </p>
      <div className="product-form-actions">
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? (
            <>
              <span className="product-form-spinner" aria-hidden="true" />
              {PHASE_LABELS[phase]}
            </>
          ) : (
            'Save Changes'
          )}
        </button>
        <button type="button" className="button button--secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
