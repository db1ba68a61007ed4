import { useEffect, useRef, useState, type RefObject } from 'react';
import { Link, Navigate, useParams } from '../../../lib/router.tsx';
import { formatUsd, RELEASE_MESSAGES, type Product } from '@storefront/domain/catalog.ts';
import { lineName, lowStockNote, perCustomerLimitNote, noMoreMessage, addableQty, isSoldOut, productSoldOut, sameValues, STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import { cartStore, useCart } from '../../../lib/cart.ts';
import { ProductDropNote } from './drop-links.tsx';
import { effectiveReleaseDate } from '@storefront/domain/preorders.ts';
import { PreorderNote } from '../../../ui/preorder-note.tsx';
import { lazyPart } from '../../../lib/lazy-part.tsx';
import { useSession } from '../../../lib/session.ts';
import { useHydrated } from '../../../lib/hydration.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { toast } from '../../../lib/toast.ts';
import { Badge } from '../../../ui/badge.tsx';
import { ErrorState } from '../../../ui/error-state.tsx';
import { BackToShop } from '../../../ui/back-to-shop.tsx';
import { BackLink, DetailLoading, DetailNotFound } from '../../../ui/detail-page.tsx';
import { isProductNotFound, useProduct } from '../api/get-product.ts';
import { ProductGallery } from './product-gallery.tsx';
import { VariantPicker } from './variant-picker.tsx';
import './catalog.css';
import { paths } from '../../../lib/paths.ts';
import { ProductFollowButtons } from '../../../ui/follows/components/product-follow-buttons.tsx';
import { NotifyMe } from '../../../ui/notify-me/notify-me.tsx';
import { HeartButton } from '../../../ui/wishlist/heart-button.tsx';

// The edit form (fields, image manager, uploads) is for admins: shoppers' product pages load without it.
const EditForm = lazyPart(() => import('./product-edit-form.tsx').then((m) => m.ProductEditForm), {
  loading: 'Loading the editor…',
  failed: 'The editor could not be loaded.',
});

/** A product (spec section 2, Product detail): gallery, details, Add to Cart; Edit for admins. */
export function ProductPage() {
  const { id = '' } = useParams();
  // A new id is a new page: edit mode and the gallery's choice start over.
  return <ProductScreen key={id} id={id} />;
}

function ProductScreen({ id }: { id: string }) {
  const product = useProduct(id);
  // The tab is named after the product, as the server's <title> names it (decision 062).
  usePageTitle(product.data?.name ?? 'Product');
  const { user } = useSession();
  const isAdmin = user?.isAdmin === true;
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const returnFocusToEdit = useRef(false);

  useEffect(() => {
    // Admins are likely to edit: the form's code is on its way before they press Edit.
    if (isAdmin) EditForm.preload();
  }, [isAdmin]);

  useEffect(() => {
    // Leaving edit mode puts keyboard focus back on Edit, where the admin started.
    if (editing || !returnFocusToEdit.current) return;
    returnFocusToEdit.current = false;
    editButton.current?.focus();
  }, [editing]);

  const leaveEditMode = () => {
    returnFocusToEdit.current = true;
    setEditing(false);
  };

  if (product.isPending) return <ProductLoading />;
  // Also after a live update: a product withdrawn while open is gone for this visitor too.
  if (isProductNotFound(product.error)) return <ProductNotFound />;
  if (!product.data) {
    return (
      <section className="page product-page">
        <ErrorState headingLevel={1} title="This product could not be loaded." message="Check your connection and try again." onRetry={() => void product.refetch()} />
        <BackLink className="product-page__back" to={paths.shop} label="Back to Shop" />
      </section>
    );
  }

  const data = product.data;
  // A digital release's product lives at the release's page (issue 39 item 6), as the server's 301 says.
  if (data.releaseId !== undefined) return <Navigate to={paths.music(data.releaseId)} replace />;
  return (
    <section className="page product-page">
      <BackLink className="product-page__back" to={paths.shop} label="Back to Shop" />
      {isAdmin && editing ? (
        <>
          <h1 className="product__name">{data.name}</h1>
          <EditForm.Part product={data} onDone={leaveEditMode} onCancel={leaveEditMode} />
        </>
      ) : (
        <ProductDetails product={data} isAdmin={isAdmin} editButtonRef={editButton} onEdit={() => setEditing(true)} />
      )}
    </section>
  );
}

interface ProductDetailsProps {
  product: Product;
  isAdmin: boolean;
  editButtonRef: RefObject<HTMLButtonElement | null>;
  onEdit: () => void;
}

function ProductDetails({ product, isAdmin, editButtonRef, onEdit }: ProductDetailsProps) {
  const cart = useCart();
  // Server-rendered (decision 062): until this page's code has hydrated, a press would reach no
  // handler (and a size picked then would not be the one added), so the controls wait for it.
  const ready = useHydrated();
  // The first variant with something left is chosen at first; a sized product's default too.
  const [chosen, setChosen] = useState<string[]>(() => (product.variants.find((variant) => !isSoldOut(variant)) ?? product.variants[0])?.options ?? []);
  const variant = product.variants.find((candidate) => sameValues(candidate.options, chosen));
  const soldOut = productSoldOut(product.variants) || (variant !== undefined && isSoldOut(variant));
  const isDefault = variant?.id === product.id;
  const lineId = variant?.id ?? product.id;
  const inCart = cart.lines.find((line) => line.lineId === lineId)?.qty ?? 0;
  const note = variant ? lowStockNote(variant.stock) : undefined;

  const addToCart = () => {
    if (!variant) {
      toast.error(STOCK_MESSAGES.chooseOption);
      return;
    }
    // Never more than is left (the checkout checks again: someone else may buy it meanwhile).
    if (addableQty(variant.stock, inCart, 1) === 0) {
      toast.error(noMoreMessage(variant.stock ?? 0));
      return;
    }
    cartStore.add({
      lineId,
      ...(isDefault ? {} : { productId: product.id, variantId: variant.id }),
      title: lineName(product.name, variant.options),
      image: product.images[0] ?? '',
      priceCents: variant.priceCents,
    });
    toast.success(RELEASE_MESSAGES.addedToCart);
  };

  return (
    <div className="product">
      {/* Keyed by the images: after an edit the gallery shows the (new) first image. */}
      <ProductGallery key={product.images.join('\n')} images={product.images} name={product.name} />
      <div className="product__info">
        <h1 className="product__name">{product.name}</h1>
        <p className="product__price">{formatUsd(variant?.priceCents ?? product.priceCents)}</p>
        <PreorderNote date={effectiveReleaseDate(product, variant)} as="p" />
        {!product.isActive ? <Badge tone="pending">Hidden from the shop</Badge> : null}
        {product.options.length > 0 ? <VariantPicker product={product} chosen={chosen} onChange={setChosen} disabled={!ready} /> : null}
        <p className="product__stock" aria-live="polite">
          {soldOut ? <Badge tone="danger">{STOCK_MESSAGES.soldOut}</Badge> : note}
        </p>
        {variant?.perCustomerLimit && !soldOut ? <p className="product__limit">{perCustomerLimitNote(variant.perCustomerLimit)}</p> : null}
        {product.includes && product.includes.length > 0 ? (
          // A bundle (issue 27, decision 055): what it is made of; the picked parts are its options above.
          <p className="product__includes" data-testid="bundle-includes">
            Includes: {product.includes.join(', ')}
          </p>
        ) : null}
        <p className="product__description">{product.description}</p>
        <div className="product__actions">
          <button type="button" className="button" onClick={addToCart} disabled={soldOut || !ready}>
            Add to Cart
          </button>
          <Link to={paths.shop} className="button button--secondary">
            Continue Shopping
          </Link>
          {isAdmin ? (
            <button ref={editButtonRef} type="button" className="button button--secondary" onClick={onEdit}>
              Edit
            </button>
          ) : null}
        </div>
        {/* Notify me (decision 076): a sold-out variant whose stock the shop counts (a bundle's is what its parts allow). */}
        {soldOut && variant && variant.stock !== null ? <NotifyMe variantId={variant.id} name={lineName(product.name, variant.options)} /> : null}
        <HeartButton productId={product.id} name={product.name} />
        <ProductDropNote productId={product.id} />
        <ProductFollowButtons productId={product.id} />
      </div>
    </div>
  );
}

function ProductNotFound() {
  return (
    <DetailNotFound page="product-page" title={RELEASE_MESSAGES.notFound} lead="It may have been taken out of the shop, or the link is mistyped.">
      <BackToShop />
    </DetailNotFound>
  );
}

function ProductLoading() {
  return <DetailLoading page="product-page" label="Loading the product…" layout="product" line={{ width: '25%', height: '1.5rem' }} />;
}
