import { useEffect, useRef, useState } from 'react';
import { MAX_PRODUCT_IMAGES } from '@storefront/domain/catalog.ts';
import type { UploadTask } from '@storefront/sdk/storage/upload-task.ts';
import type { ManagedImage } from '../ui/image-manager/image-manager.tsx';
import { isImageFile, uploadErrorMessage, uploadProductImage } from './uploads.ts';

export const UPLOAD_FAILED = 'The image could not be uploaded.';

/** One image of a product being released or edited, in its place in the product's order. */
export interface ImageEntry {
  key: string;
  /** The download URL: known for stored images, set for a new file once it is uploaded. */
  url: string | null;
  /** A new file chosen in this form; null for images the product already had. */
  file: File | null;
  /** What a preview shows: the stored URL, or a local object URL of the file. */
  previewUrl: string;
  name: string;
  /** Percent uploaded, from the first progress event of this form's save; null before. */
  progress: number | null;
  error: string | null;
}

export interface AddFilesResult {
  added: number;
  /** Names of the chosen files that are not images (spec section 5: only image files). */
  notImages: string[];
  /** Image files left out because the product already has the most images it may have. */
  overLimit: number;
}

let lastKey = 0;
const nextKey = () => `image-${(lastKey += 1)}`;

/** A readable name for a stored image: its file name, without the upload's timestamp and index. */
function imageName(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: the raw path still names the file well enough.
  }
  return (decoded.split('/').pop() ?? '').replace(/^\d+_\d+_/, '') || 'image';
}

function storedEntry(url: string): ImageEntry {
  return { key: nextKey(), url, file: null, previewUrl: url, name: imageName(url), progress: null, error: null };
}

/**
 * The images of a product form: stored URLs and newly chosen files, reorderable, and
 * uploaded on save with a progress value per image. Local previews and uploads still
 * running are released when the form goes away.
 */
export function useImageList(initialUrls: readonly string[] = []) {
  const [entries, setEntries] = useState<ImageEntry[]>(() => initialUrls.map(storedEntry));
  const resources = useRef({ objectUrls: new Set<string>(), tasks: new Set<UploadTask>() });

  useEffect(() => {
    const current = resources.current;
    return () => {
      for (const url of current.objectUrls) URL.revokeObjectURL(url);
      current.objectUrls.clear();
      for (const task of current.tasks) task.cancel();
      current.tasks.clear();
    };
  }, []);

  const update = (key: string, patch: Partial<ImageEntry>) => setEntries((current) => current.map((entry) => (entry.key === key ? { ...entry, ...patch } : entry)));

  const forget = (entry: ImageEntry) => {
    if (!entry.file) return;
    URL.revokeObjectURL(entry.previewUrl);
    resources.current.objectUrls.delete(entry.previewUrl);
  };

  /** Adds the image files among `files`, after the images already there. */
  const add = (files: Iterable<File>): AddFilesResult => {
    const images: File[] = [];
    const notImages: string[] = [];
    for (const file of files) {
      if (isImageFile(file)) images.push(file);
      else notImages.push(file.name);
    }
    const taken = images.slice(0, Math.max(0, MAX_PRODUCT_IMAGES - entries.length));
    const fresh = taken.map((file): ImageEntry => {
      const previewUrl = URL.createObjectURL(file);
      resources.current.objectUrls.add(previewUrl);
      return { key: nextKey(), url: null, file, previewUrl, name: file.name, progress: null, error: null };
    });
    if (fresh.length > 0) setEntries((current) => [...current, ...fresh]);
    return { added: fresh.length, notImages, overLimit: images.length - taken.length };
  };

  /** Moves an image one place left (-1) or right (+1). */
  const move = (key: string, delta: -1 | 1) =>
    setEntries((current) => {
      const from = current.findIndex((entry) => entry.key === key);
      const to = from + delta;
      if (from === -1 || to < 0 || to >= current.length) return current;
      const next = [...current];
      [next[from], next[to]] = [next[to]!, next[from]!];
      return next;
    });

  const remove = (key: string) => {
    const entry = entries.find((candidate) => candidate.key === key);
    if (entry) forget(entry);
    setEntries((current) => current.filter((candidate) => candidate.key !== key));
  };

  /** Starts over with these stored images (e.g. after a release, with none). */
  const reset = (urls: readonly string[] = []) => {
    for (const entry of entries) forget(entry);
    setEntries(urls.map(storedEntry));
  };

  /**
   * Uploads every image not stored yet, all at once, and resolves with the download URLs
   * in the images' order. A failed upload marks its image and rejects with its error;
   * the ones that succeeded keep their URL, so saving again uploads only the rest.
   */
  const uploadAll = async (): Promise<string[]> => {
    const timestampMs = Date.now();
    const results = await Promise.allSettled(
      entries.map(async (entry, index) => {
        if (entry.url !== null) return entry.url;
        if (!entry.file) throw new Error(`Image ${entry.name} has neither a URL nor a file.`);
        update(entry.key, { progress: 0, error: null });
        const upload = uploadProductImage(entry.file, {
          timestampMs,
          index,
          onProgress: (percent) => update(entry.key, { progress: percent }),
        });
        resources.current.tasks.add(upload.task);
        try {
          const url = await upload.url;
          update(entry.key, { url, progress: 100 });
          return url;
        } catch (error) {
          update(entry.key, { error: uploadErrorMessage(error, UPLOAD_FAILED) });
          throw error;
        } finally {
          resources.current.tasks.delete(upload.task);
        }
      }),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return results.map((result) => (result as PromiseFulfilledResult<string>).value);
  };

  const images: ManagedImage[] = entries.map((entry) => ({
    key: entry.key,
    src: entry.previewUrl,
    name: entry.name,
    progress: entry.progress,
    error: entry.error,
    isNew: entry.url === null,
  }));

  return { entries, images, add, move, remove, reset, uploadAll };
}

/** What to tell the admin about chosen files that were left out, or null when none were. */
export function skippedFilesNotice({ notImages, overLimit }: AddFilesResult): string | null {
  const parts: string[] = [];
  if (notImages.length > 0) parts.push(`Only image files can be added; skipped ${notImages.join(', ')}.`);
  if (overLimit > 0) parts.push(`A product can have at most ${MAX_PRODUCT_IMAGES} images; ${overLimit} not added.`);
  return parts.length > 0 ? parts.join(' ') : null;
}
