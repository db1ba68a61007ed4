import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { Link } from '../../../lib/router.tsx';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { Badge } from '../../../ui/badge.tsx';
import { Modal } from '../../../ui/modal.tsx';
import { MoveButtons } from '../../../ui/move-buttons.tsx';
import { useAllProducts, useDeleteProduct, useMoveProduct, useSetProductActive, useSetProductGiftCard } from '../api/console-products.ts';
import { LoadState } from './load-state.tsx';
import './console.css';
import { paths } from '../../../lib/paths.ts';

type Product = FunctionOutput<'listAllProducts'>['products'][number];

/** A drag in progress: which product, from where, and whether the pointer has moved far enough to be one. */
interface Drag {
  id: string;
  pointerId: number;
  startY: number;
  active: boolean;
}

/** Pixels a pointer moves before a press becomes a drag (a click on the row stays a click). */
const DRAG_THRESHOLD = 6;
const INTERACTIVE = 'a, button, input, select, textarea, label';

/**
 * The console's products (issue 18): the shop's order, changed by dragging a row or by
 * keyboard (the Move up / Move down buttons, or Alt+Arrow keys on a row); withdraw,
 * restore, and delete a product no one ordered. Every open page follows live.
 *
 * Dragging uses pointer events (issue 29 item 5), not HTML drag and drop: a mouse drags a row
 * from anywhere but its buttons and links, a finger or pen from its grip (so the page still
 * scrolls by touch); the row under the pointer is where it lands. Delete is offered only where
 * it can succeed, otherwise disabled with the reason.
 */
// Its opening hook calls look like use-place-order.ts's only by shape (other hooks, other state).
export function ProductsTab() {
  const products = useAllProducts();
  const move = useMoveProduct();
  const setActive = useSetProductActive();
  const remove = useDeleteProduct();
  const [dragging, setDragging] = useState<{ id: string; over: number } | null>(null);
  const drag = useRef<Drag | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const [deleting, setDeleting] = useState<Product | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const list = products.data?.products ?? [];

  const moveTo = (product: Product, position: number) => {
    if (position < 0 || position >= list.length) return;
    move.move({ id: product.id, position }).then(
      () => setAnnouncement(`${product.name} moved to place ${position + 1} of ${list.length}.`),
      (error: unknown) => toast.error(errorSentence(error, 'Could not move the product.')),
    );
  };

  const toggle = (product: Product) => {
    setActive.mutate(
      { id: product.id, isActive: !product.isActive },
      {
        onSuccess: () => setAnnouncement(`${product.name} ${product.isActive ? 'withdrawn from' : 'restored to'} the shop.`),
        onError: (error) => toast.error(errorSentence(error, 'Could not change the product.')),
      },
    );
  };

  const setGiftCard = useSetProductGiftCard();
  const toggleGiftCard = (product: Product) => {
    const giftCard = !product.giftCard;
    setGiftCard.mutate(
      { productId: product.id, giftCard },
      {
        onSuccess: () => setAnnouncement(`${product.name} is ${giftCard ? 'now a gift card' : 'no longer a gift card'}.`),
        onError: (error) => toast.error(errorSentence(error, 'Could not change the product.')),
      },
    );
  };

  const confirmDelete = () => {
    const product = deleting;
    setDeleting(null);
    if (!product) return;
    remove.mutate(product.id, {
      onSuccess: () => setAnnouncement(`${product.name} deleted.`),
      onError: (error) => toast.error(errorSentence(error, 'Could not delete the product.')),
    });
  };

  const onRowKey = (event: KeyboardEvent<HTMLLIElement>, product: Product, index: number) => {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    event.preventDefault();
    moveTo(product, index + (event.key === 'ArrowUp' ? -1 : 1));
  };

  /** The row under the pointer (clamped to the first and last). */
  const indexAt = (clientY: number) => {
    const rows = [...(listRef.current?.querySelectorAll<HTMLElement>(':scope > li') ?? [])];
    const found = rows.findIndex((row) => clientY < row.getBoundingClientRect().bottom);
    return found < 0 ? rows.length - 1 : found;
  };

  const onPointerDown = (event: PointerEvent<HTMLLIElement>, product: Product) => {
    if (event.button !== 0 || drag.current) return;
    const target = event.target as HTMLElement;
    if (target.closest(INTERACTIVE)) return;
    if (event.pointerType !== 'mouse' && !target.closest('.console-product__grip')) return;
    drag.current = { id: product.id, pointerId: event.pointerId, startY: event.clientY, active: false };
    event.currentTarget.setPointerCapture(event.pointerId);
  };

  const onPointerMove = (event: PointerEvent<HTMLLIElement>) => {
    const current = drag.current;
    if (!current || current.pointerId !== event.pointerId) return;
    if (!current.active && Math.abs(event.clientY - current.startY) < DRAG_THRESHOLD) return;
    current.active = true;
    event.preventDefault();
    const over = indexAt(event.clientY);
    setDragging((shown) => (shown?.id === current.id && shown.over === over ? shown : { id: current.id, over }));
  };

  const endDrag = (event: PointerEvent<HTMLLIElement>, drop: boolean) => {
    const current = drag.current;
    if (!current || current.pointerId !== event.pointerId) return;
    drag.current = null;
    setDragging(null);
    if (!drop || !current.active) return;
    const product = list.find((item) => item.id === current.id);
    const to = indexAt(event.clientY);
    if (product && to !== list.indexOf(product)) moveTo(product, to);
  };

  if (products.isPending || products.isError) return <LoadState query={products} label="Loading products…" lines={6} failed="Could not load the products." />;

  return (
    <div className="console-products">
      <h2 className="console__title">Products</h2>
      <p className="console__hint">The shop shows products in this order. Drag a row (by its grip on a touch screen), or use Move up and Move down (Alt+Arrow keys on a row).</p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {list.length === 0 ? (
        <p>No products released yet.</p>
      ) : (
        <ol ref={listRef} className={`console-products__list${dragging ? ' console-products__list--dragging' : ''}`} aria-label="Products in shop order">
          {list.map((product, index) => (
            <li
              key={product.id}
              className={`console-product${dragging?.id === product.id ? ' console-product--dragging' : ''}${dragging && dragging.id !== product.id && dragging.over === index ? ' console-product--drop-target' : ''}`}
              data-testid="console-product"
              onPointerDown={(event) => onPointerDown(event, product)}
              onPointerMove={onPointerMove}
              onPointerUp={(event) => endDrag(event, true)}
              onPointerCancel={(event) => endDrag(event, false)}
              onKeyDown={(event) => onRowKey(event, product, index)}
            >
              <span className="console-product__grip" aria-hidden="true">
                ⋮⋮
              </span>
              {product.images[0] ? <img className="console-product__image" src={product.images[0]} alt="" width={48} height={48} /> : null}
              <span className="console-product__name">
                <Link to={paths.product(product.id)}>{product.name}</Link>
                <span className="console-product__price">{formatUsd(product.priceCents)}</span>
                {product.isActive ? null : <Badge tone="pending">Withdrawn</Badge>}
                {product.giftCard ? <Badge tone="success">Gift card</Badge> : null}
              </span>
              <span className="console-product__actions">
                <MoveButtons name={product.name} index={index} count={list.length} onMove={(by) => moveTo(product, index + by)} />
                <button
                  type="button"
                  className="button button--secondary button--small"
                  aria-label={`${product.isActive ? 'Withdraw' : 'Restore'} ${product.name}`}
                  onClick={() => toggle(product)}
                >
                  {product.isActive ? 'Withdraw' : 'Restore'}
                </button>
                <button
                  type="button"
                  className="button button--secondary button--small"
                  aria-pressed={product.giftCard === true}
                  aria-label={`Gift card: ${product.name}`}
                  onClick={() => toggleGiftCard(product)}
                >
                  Gift card
                </button>
                <button
                  type="button"
                  className="button button--danger button--small"
                  aria-label={`Delete ${product.name}`}
                  disabled={product.deleteBlocked !== null}
                  aria-describedby={product.deleteBlocked ? `delete-why-${product.id}` : undefined}
                  onClick={() => setDeleting(product)}
                >
                  Delete
                </button>
                {product.deleteBlocked ? (
                  <span id={`delete-why-${product.id}`} className="console-product__why">
                    {product.deleteBlocked === 'ordered' ? CONSOLE_MESSAGES.productOrdered : CONSOLE_MESSAGES.productHeld}
                  </span>
                ) : null}
              </span>
            </li>
          ))}
        </ol>
      )}
      <Modal open={deleting !== null} onClose={() => setDeleting(null)} title="Delete this product?">
        {deleting ? <p>{deleting.name} will be deleted for good.</p> : null}
        <div className="console__confirm-actions">
          <button type="button" className="button button--danger" onClick={confirmDelete}>
            Yes, delete
          </button>
          <button type="button" className="button button--secondary" onClick={() => setDeleting(null)}>
            Cancel
          </button>
        </div>
      </Modal>
    </div>
  );
}
