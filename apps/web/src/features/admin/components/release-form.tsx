import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, productFormProblem, RELEASE_MESSAGES, usdToCents } from '@storefront/domain/catalog.ts';
import { variantsFromForm } from '@storefront/domain/variants.ts';
import { toast } from '../../../lib/toast.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { skippedFilesNotice, useImageList } from '../../../lib/use-image-list.ts';
import { ImageManager } from '../../../ui/image-manager/image-manager.tsx';
import { EMPTY_PRODUCT_FIELDS, ProductFields, useProductFieldRefs, type ProductFieldValues } from '../../../ui/product-form/product-fields.tsx';
import { EMPTY_VARIANTS_FORM, VariantsEditor, type VariantsFormValues } from '../../../ui/product-form/variants-editor.tsx';
import { useReleaseProduct } from '../api/release-product.ts';
import { RELEASE_PAGE_TEXTS } from '../messages.ts';
import { paths } from '../../../lib/paths.ts';

type Phase = 'idle' | 'uploading' | 'releasing';

const PHASE_LABELS: Record<Phase, string> = { idle: '', uploading: 'Uploading images…', releasing: 'Releasing…' };

/**
 * The Release Product tab (spec sections 2 and 5): the checks in the spec's order with its
 * messages in an alert, the images uploaded on Release (a progress bar each), then
 * releaseBizarreProduct; on success the form starts over.
 */
export function ReleaseForm() {
  const [fields, setFields] = useState<ProductFieldValues>(EMPTY_PRODUCT_FIELDS);
  const [variantsForm, setVariantsForm] = useState<VariantsFormValues>(EMPTY_VARIANTS_FORM);
  const images = useImageList();
  const release = useReleaseProduct();
  const [phase, setPhase] = useState<Phase>('idle');
  const [problem, setProblem] = useState<string | null>(null);
  const [released, setReleased] = useState<{ id: string | null; name: string } | null>(null);
  const { refs, focusProblem } = useProductFieldRefs();
  const busy = phase !== 'idle';

  const addFiles = (files: File[]) => {
    const notice = skippedFilesNotice(images.add(files));
    if (notice) toast.warning(notice);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setReleased(null);
    const check = productFormProblem({ ...fields, imageCount: images.entries.length }, 'release');
    setProblem(check ?? null);
    if (check) {
      focusProblem(check);
      return;
    }
    // Issue 15: options and a variant per combination (the spec's checks come first).
    const variants = variantsFromForm(variantsForm.options, variantsForm.rows, usdToCents, MAX_PRICE_CENTS);
    if ('problem' in variants) {
      setProblem(variants.problem);
      return;
    }
    const name = fields.name.trim();
    try {
      setPhase('uploading');
      const urls = await images.uploadAll();
      setPhase('releasing');
      const result = await release.mutateAsync({
        name,
        description: fields.description.trim(),
        priceCents: usdToCents(fields.price) ?? 0,
        images: urls,
        options: variants.options,
        variants: variants.variants,
      });
      if (result?.ok !== true) {
        setProblem(RELEASE_MESSAGES.releaseNotOk);
      } else {
        setReleased({ id: typeof result.id === 'string' ? result.id : null, name });
        setFields(EMPTY_PRODUCT_FIELDS);
        setVariantsForm(EMPTY_VARIANTS_FORM);
        images.reset();
      }
    } catch (error) {
      console.warn('Could not release the product:', error);
      setProblem(errorSentence(error, RELEASE_MESSAGES.releaseFailed));
    }
    setPhase('idle');
  };

  return (
    <form className="release-form" aria-label="Release a product" aria-busy={busy || undefined} noValidate onSubmit={(event) => void submit(event)}>
      <h2 className="release-form__title">Release Product</h2>
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
      {/* Always in the page, so a screen reader announces every new message. */}
      <div className="product-form-messages">
        <div role="alert" className="product-form-message product-form-message--error">
          {problem}
        </div>
        <div role="status" className="product-form-message product-form-message--success">
          {released ? (
            <>
              {RELEASE_PAGE_TEXTS.released}: {released.name}.{' '}
              {released.id ? <Link to={paths.product(released.id)}>{RELEASE_PAGE_TEXTS.viewReleased}</Link> : null}
            </>
          ) : null}
        </div>
      </div>
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
            'Release Product'
          )}
        </button>
      </div>
    </form>
  );
}
