import { useProductArtists } from '../api/follows.ts';
import { FollowButtons } from './follow-buttons.tsx';

/** A product page's follow buttons (decision 074): the artists it credits, and the label. */
export function ProductFollowButtons({ productId }: { productId: string }) {
  const artists = useProductArtists(productId);
  return <FollowButtons artists={artists.data ?? []} />;
}
