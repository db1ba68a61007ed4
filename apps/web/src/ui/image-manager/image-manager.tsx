import { useId, useRef, type ChangeEvent, type ReactNode, type RefObject } from 'react';
import { ProgressBar } from '../progress-bar.tsx';
import { ProductImage } from '../product-image.tsx';
import './image-manager.css';

export interface ManagedImage {
  key: string;
  /** A stored image's URL or a local preview of a chosen file. */
  src: string;
  name: string;
  /** Percent uploaded; null when no upload has started. */
  progress: number | null;
  error: string | null;
  /** A chosen file that is not stored yet. */
  isNew: boolean;
}

interface ImageManagerProps {
  /** The group's visible name, e.g. "Images". */
  label: string;
  images: ManagedImage[];
  maxImages: number;
  /** While a save runs: nothing can be added, moved or removed. */
  disabled?: boolean;
  /** Every file chosen, as chosen; the caller keeps the images among them. */
  onAddFiles: (files: File[]) => void;
  onMove: (key: string, delta: -1 | 1) => void;
  onRemove: (key: string) => void;
  /** The Add images file input, e.g. to focus it when a form says an image is missing. */
  inputRef?: RefObject<HTMLInputElement | null>;
}

/**
 * Product image management (spec sections 2 and 5): add image files (several at a time),
 * reorder left and right, remove, and a progress bar for each image being uploaded.
 * Presentational: the caller owns the list and the uploads.
 */
export function ImageManager({ label, images, maxImages, disabled = false, onAddFiles, onMove, onRemove, inputRef }: ImageManagerProps) {
  const labelId = useId();
  const hintId = useId();
  const full = images.length >= maxImages;
  const ownInput = useRef<HTMLInputElement>(null);
  const addInput = inputRef ?? ownInput;

  // The removed image's buttons go with it: keyboard focus moves on to Add images.
  const remove = (key: string) => {
    onRemove(key);
    // After the re-render, when a full list's input is enabled again.
    setTimeout(() => addInput.current?.focus(), 0);
  };

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    // Cleared, so choosing the same file again still counts as a change.
    event.target.value = '';
    if (files.length > 0) onAddFiles(files);
  };

  return (
    <fieldset className="field-group image-manager" aria-describedby={hintId} disabled={disabled}>
      <legend id={labelId} className="image-manager__legend">
        {label}
      </legend>
      <p id={hintId} className="image-manager__hint">
        The first image is the one the shop shows. Up to {maxImages} images; image files only.
      </p>
      {images.length > 0 ? (
        <ol className="image-manager__list" aria-labelledby={labelId}>
          {images.map((image, index) => (
            <ImageItem key={image.key} image={image} position={index + 1} count={images.length} onMove={(delta) => onMove(image.key, delta)} onRemove={() => remove(image.key)} />
          ))}
        </ol>
      ) : (
        <p className="image-manager__empty">No images yet.</p>
      )}
      <label className={`button button--secondary image-manager__add${full ? ' image-manager__add--full' : ''}`}>
        <input ref={addInput} type="file" className="visually-hidden" accept="image/*" multiple disabled={disabled || full} onChange={choose} />
        Add images
      </label>
    </fieldset>
  );
}

interface ImageItemProps {
  image: ManagedImage;
  position: number;
  count: number;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
}

function ImageItem({ image, position, count, onMove, onRemove }: ImageItemProps) {
  const which = `image ${position}`;
  return (
    <li className="image-manager__item">
      <div className="image-manager__preview">
        <ProductImage className="image-manager__image" url={image.src} alt={`Image ${position}: ${image.name}`} sizes="10rem" />
        {position === 1 ? <span className="image-manager__badge">Main</span> : null}
      </div>
      <p className="image-manager__name" title={image.name}>
        {image.name}
      </p>
      {image.progress !== null ? (
        <div className="image-manager__progress">
          <ProgressBar value={image.progress} label={`Uploading ${which}: ${image.name}`} />
          <span className="image-manager__percent" aria-hidden="true">
            {image.progress}%
          </span>
        </div>
      ) : image.isNew ? (
        <p className="image-manager__state">Not uploaded yet</p>
      ) : null}
      {image.error ? <p className="image-manager__error">{image.error}</p> : null}
      <div className="image-manager__actions">
        <MoveButton label={`Move ${which} left`} blocked={position === 1} onClick={() => onMove(-1)}>
          <span aria-hidden="true">←</span> Left
        </MoveButton>
        <MoveButton label={`Move ${which} right`} blocked={position === count} onClick={() => onMove(1)}>
          Right <span aria-hidden="true">→</span>
        </MoveButton>
        <button type="button" className="image-manager__action image-manager__action--remove" aria-label={`Remove ${which}`} onClick={onRemove}>
          Remove
        </button>
      </div>
    </li>
  );
}

/**
 * aria-disabled rather than disabled at the ends of the list: the button just moved keeps
 * keyboard focus, so Left can be pressed again and again.
 */
function MoveButton({ label, blocked, onClick, children }: { label: string; blocked: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="image-manager__action" aria-label={label} aria-disabled={blocked || undefined} onClick={blocked ? undefined : onClick}>
      {children}
    </button>
  );
}
