import { cartStore } from '../../../lib/cart.ts';
import { paths } from '../../../lib/paths.ts';
import { useNavigate } from '../../../lib/router.tsx';

interface BuyableItem {
  productId: string;
  variantId: string;
  name: string;
  priceCents: number;
  image: string | null;
}

/**
 * Puts one unit of an admitted (or offered) item in the cart, once, and opens the checkout. The
 * server finds the fan's admission or waitlist offer by their account (decision 066): nothing
 * the browser holds is trusted for it.
 */
export function useBuyNow() {
  const navigate = useNavigate();
  return (item: BuyableItem) => {
    if (!cartStore.get().lines.some((line) => line.lineId === item.variantId)) {
      const isDefault = item.variantId === item.productId;
      cartStore.add({
        lineId: item.variantId,
        ...(isDefault ? {} : { productId: item.productId, variantId: item.variantId }),
        title: item.name,
        image: item.image ?? '',
        priceCents: item.priceCents,
      });
    }
    navigate(paths.checkout);
  };
}
