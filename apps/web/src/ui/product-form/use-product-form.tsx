import { useState, type ReactNode } from 'react';
import { MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, productFormProblem, usdToCents } from '@storefront/domain/catalog.ts';
import { MAX_WEIGHT_GRAMS, STOCK_MESSAGES, variantsFromForm } from '@storefront/domain/variants.ts';
import { isCalendarDate, PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { toast } from '../../lib/toast.ts';
import { skippedFilesNotice, useImageList } from '../../lib/use-image-list.ts';
import { ImageManager } from '../image-manager/image-manager.tsx';
import { ProductFields, useProductFieldRefs, type ProductFieldValues } from './product-fields.tsx';
import { VariantsEditor, type VariantsFormValues } from './variants-editor.tsx';

/** idle, then uploading the new images, then sending the release or edit call. */
export type ProductFormPhase = 'idle' | 'uploading' | 'sending';

type BuiltVariants = Exclude<ReturnType<typeof variantsFromForm>, { problem: string }>;

/** What the release and edit calls take, built from the form once its checks pass. */
export interface ProductFormInput {
  name: string;
  description: string;
  priceCents: number;
  category: string;
  /** A preorder's street date (decision 054); null: none. */
  releaseDate: string | null;
  /** The product's default weight in grams (decision 060); null: none. */
  weightGrams: number | null;
  images: string[];
  options: BuiltVariants['options'];
  variants: BuiltVariants['variants'];
}

interface ProductFormOptions {
  /** 'release' or 'edit': the spec's checks differ in the image message only. */
  mode: 'release' | 'edit';
  fields: ProductFieldValues;
  variants: VariantsFormValues;
  images?: readonly string[];
  /** Shows a check's problem (null: the checks passed, a shown problem may clear). */
  report: (problem: string | null) => void;
}

/**
 * The state, checks, images and variants of the product form, written once for the
 * admin's Release Product tab and the product page's edit mode.
 */
export function useProductForm({ mode, fields: initialFields, variants: initialVariants, images: initialImages, report }: ProductFormOptions) {
  const [fields, setFields] = useState<ProductFieldValues>(initialFields);
  const [variantsForm, setVariantsForm] = useState<VariantsFormValues>(initialVariants);
  const images = useImageList(initialImages);
  const [phase, setPhase] = useState<ProductFormPhase>('idle');
  const { refs, focusProblem } = useProductFieldRefs();
  const busy = phase !== 'idle';

  const addFiles = (files: File[]) => {
    const notice = skippedFilesNotice(images.add(files));
    if (notice) toast.warning(notice);
  };

  /**
   * The spec's checks in its order, then issue 15's variants, then the images uploaded and
   * `send` called with the call's input. `send` returns 'done' to keep the form busy (it is
   * closing); failures go to `onFailure`; otherwise the form is idle again.
   */
  const submit = async (send: (input: ProductFormInput) => Promise<'done' | void>, onFailure: (error: unknown) => void) => {
    if (busy) return;
    const check = productFormProblem({ ...fields, imageCount: images.entries.length }, mode);
    report(check ?? null);
    if (check) {
      focusProblem(check);
      return;
    }
    // Issue 15: options and a variant per combination (the spec's checks come first); a stock
    // left as loaded keeps the live count (sales since the form opened stay sold).
    const variants = variantsFromForm(variantsForm.options, variantsForm.rows, usdToCents, MAX_PRICE_CENTS);
    if ('problem' in variants) {
      report(variants.problem);
      return;
    }
    // Decision 060: the product's default weight, whole grams (the server checks it again).
    const weightText = (fields.weight ?? '').trim();
    if (weightText && (!/^\d+$/.test(weightText) || Number(weightText) > MAX_WEIGHT_GRAMS)) {
      report(STOCK_MESSAGES.weight);
      return;
    }
    // A street date (decision 054): a real day or nothing; the server checks it is after today.
    const releaseDate = fields.releaseDate?.trim() || null;
    if (releaseDate && !isCalendarDate(releaseDate)) {
      report(PREORDER_MESSAGES.releaseDate);
      return;
    }
    const name = fields.name.trim();
    try {
      setPhase('uploading');
      const urls = await images.uploadAll();
      setPhase('sending');
      const outcome = await send({
        name,
        description: fields.description.trim(),
        priceCents: usdToCents(fields.price) ?? 0,
        category: fields.category,
        weightGrams: weightText ? Number(weightText) : null,
        releaseDate,
        images: urls,
        options: variants.options,
        variants: variants.variants,
      });
      if (outcome === 'done') return;
    } catch (error) {
      onFailure(error);
    }
    setPhase('idle');
  };

  const reset = (next: { fields: ProductFieldValues; variants: VariantsFormValues }) => {
    setFields(next.fields);
    setVariantsForm(next.variants);
    images.reset();
  };

  const editor = (
    <>
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
    </>
  );

  return { phase, busy, refs, submit, reset, editor };
}

/** The form's progress for screen readers and its submit button (with a spinner while busy). */
export function ProductFormActions({ busy, busyLabel, idleLabel, children }: { busy: boolean; busyLabel: string; idleLabel: string; children?: ReactNode }) {
  return (
    <>
      <p role="status" className="visually-hidden">
        {busyLabel}
      </p>
      <div className="product-form-actions">
        <button type="submit" className="button" disabled={busy} aria-busy={busy || undefined}>
          {busy ? (
            <>
              <span className="button-spinner" aria-hidden="true" />
              {busyLabel}
            </>
          ) : (
            idleLabel
          )}
        </button>
        {children}
      </div>
    </>
  );
}
