import { useState, type DragEvent, type KeyboardEvent } from 'react';
import { Link } from '../../../lib/router.tsx';
import { formatUsd, type Product } from '@storefront/domain/catalog.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { Badge } from '../../../ui/badge.tsx';
import { Modal } from '../../../ui/modal.tsx';
import { MoveButtons } from '../../../ui/move-buttons.tsx';
import { useAllProducts, useDeleteProduct, useMoveProduct, useSetProductActive } from '../api/console-products.ts';
import { LoadState } from './load-state.tsx';
import './console.css';
import { paths } from '../../../lib/paths.ts';

/**
 * The console's products (issue 18): the shop's order, changed by dragging a row or by
 * keyboard (the Move up / Move down buttons, or Alt+Arrow keys on a row); withdraw,
 * restore, and delete a product no one ordered. Every open page follows live.
 */
// Its opening hook calls look like use-place-order.ts's only by shape (other hooks, other state).
export function ProductsTab() {
  const products = useAllProducts();
  const move = useMoveProduct();
  const setActive = useSetProductActive();
  const remove = useDeleteProduct();
  const [dragging, setDragging] = useState<string | null>(null);
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

  const onDrop = (event: DragEvent<HTMLLIElement>, index: number) => {
    event.preventDefault();
    const product = list.find((item) => item.id === dragging);
    setDragging(null);
    if (product) moveTo(product, index);
  };

  if (products.isPending || products.isError) return <LoadState query={products} label="Loading products…" lines={6} failed="Could not load the products." />;

  return (
    <div className="console-products">
      <h2 className="console__title">Products</h2>
      <p className="console__hint">The shop shows products in this order. Drag a row, or use Move up and Move down (Alt+Arrow keys on a row).</p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {list.length === 0 ? (
        <p>No products released yet.</p>
      ) : (
        <ol className="console-products__list" aria-label="Products in shop order">
          {list.map((product, index) => (
            <li
              key={product.id}
              className={`console-product${dragging === product.id ? ' console-product--dragging' : ''}`}
              draggable
              data-testid="console-product"
              onDragStart={(event) => {
                event.dataTransfer.effectAllowed = 'move';
                event.dataTransfer.setData('text/plain', product.id);
                setDragging(product.id);
              }}
              onDragOver={(event) => event.preventDefault()}
              onDrop={(event) => onDrop(event, index)}
              onDragEnd={() => setDragging(null)}
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
                <button type="button" className="button button--danger button--small" aria-label={`Delete ${product.name}`} onClick={() => setDeleting(product)}>
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      <Modal open={deleting !== null} onClose={() => setDeleting(null)} title="Delete this product?">
        {deleting ? <p>{deleting.name} will be deleted for good. A product someone ordered cannot be deleted: withdraw it instead.</p> : null}
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
