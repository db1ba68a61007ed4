import { useHydrated } from '../../../lib/hydration.ts';
import { useOpenDrops } from '../../../lib/open-drops.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';

const when = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** The shop's note of drops that are live or coming (issue 35): each links to its queue. Nothing while there are none. */
export function ShopDropLinks() {
  const drops = useOpenDrops();
  // The server renders no note (it does not ask for drops): the note waits for hydration, or a
  // list that arrived while the page's code was loading would not match the server's HTML
  // (React error 418, seen in CI on /shop once a drop was open).
  const hydrated = useHydrated();
  if (!hydrated || !drops.data || drops.data.length === 0) return null;
  return (
    <aside className="shop-drops" aria-label="Drops">
      <ul>
        {drops.data.map((drop) => (
          <li key={drop.id}>
            <Link to={paths.drop(drop.slug)}>{drop.name}</Link>: {drop.status === 'live' ? 'live now, join the queue' : `starts ${when(drop.startsAt)}`}
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** A drop product's page says so (issue 35): it sells only through the drop's queue. */
export function ProductDropNote({ productId }: { productId: string }) {
  const drops = useOpenDrops();
  const hydrated = useHydrated();
  const drop = drops.data?.find((candidate) => candidate.productIds.includes(productId));
  // As on the shop: nothing until hydrated, so the server's HTML (no note) is matched.
  if (!hydrated || !drop) return null;
  return (
    <p className="product__drop" data-testid="product-drop-note">
      This item is in a drop: it sells through a fair queue{drop.status === 'live' ? ', live now' : `, starting ${when(drop.startsAt)}`}.{' '}
      <Link to={paths.drop(drop.slug)}>Go to {drop.name}</Link>
    </p>
  );
}
