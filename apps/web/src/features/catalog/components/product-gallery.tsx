import { useRef, useState, type KeyboardEvent } from 'react';
import { ProductImage } from '../../../ui/product-image.tsx';

const MAIN_SIZES = '(max-width: 725px) 100vw, 36rem';
const THUMB_SIZES = '5rem';

/**
 * The product's images (spec section 2): a main image and a row of thumbnails. Each
 * thumbnail is a button (aria-pressed on the one shown); besides Tab, the arrow keys,
 * Home and End move between them. Give it a `key` that changes with the images: it starts on the first.
 */
export function ProductGallery({ images, name }: { images: string[]; name: string }) {
  const [selected, setSelected] = useState(0);
  const thumbs = useRef<(HTMLButtonElement | null)[]>([]);
  const current = Math.min(selected, Math.max(0, images.length - 1));
  const main = images[current];

  if (!main) {
    return (
      <div className="gallery">
        <div className="gallery__main gallery__main--none">
          <p>No image yet.</p>
        </div>
      </div>
    );
  }

  const select = (index: number) => {
    const next = (index + images.length) % images.length;
    setSelected(next);
    thumbs.current[next]?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const moves: Record<string, number> = {
      ArrowLeft: current - 1,
      ArrowUp: current - 1,
      ArrowRight: current + 1,
      ArrowDown: current + 1,
      Home: 0,
      End: images.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(target);
  };

  return (
    <div className="gallery">
      <div className="gallery__main">
        <ProductImage className="gallery__image" url={main} alt={images.length > 1 ? `${name}, image ${current + 1} of ${images.length}` : name} sizes={MAIN_SIZES} priority />
      </div>
      {images.length > 1 ? (
        <ul className="gallery__thumbs" aria-label={`Images of ${name}`} onKeyDown={onKeyDown}>
          {images.map((url, index) => (
            <li key={`${index}-${url}`}>
              <button
                ref={(element) => {
                  thumbs.current[index] = element;
                }}
                type="button"
                className="gallery__thumb"
                aria-pressed={index === current}
                aria-label={`Show image ${index + 1} of ${images.length}`}
                onClick={() => select(index)}
              >
                <ProductImage className="gallery__thumb-image" url={url} alt="" sizes={THUMB_SIZES} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
