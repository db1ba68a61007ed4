import { useId } from 'react';
import { Link } from '../../../lib/router.tsx';
import { paths } from '../../../lib/paths.ts';
import { ProductImage } from '../../../ui/product-image.tsx';
import type { OwnedDat } from '../api/get-wallet.ts';
import { WALLET_TEXTS } from '../wallet-format.ts';

/** The DATs the user owns, newest release first, each opening its own page. */
export function OwnedDats({ dats }: { dats: OwnedDat[] }) {
  const titleId = useId();
  return (
    <section className="wallet-section" aria-labelledby={titleId}>
      <h2 id={titleId}>Your DATs</h2>
      {dats.length === 0 ? (
        <p className="wallet-empty">{WALLET_TEXTS.noDats}</p>
      ) : (
        <ul className="tile-grid dat-grid" aria-labelledby={titleId}>
          {dats.map((dat) => (
            // One row per edition: a user may own several editions of one DAT.
            <li key={`${dat.id}#${dat.edition}`}>
              <Link to={paths.dat(dat.id)} className="tile dat-card" aria-label={`${dat.songName} by ${dat.artistName}, edition ${dat.edition}`}>
                <ProductImage url={dat.artworkUrl} alt={`Cover art of ${dat.songName}`} sizes="(min-width: 726px) 13rem, 45vw" className="tile__image dat-card__image" />
                {/* Spaces and "by" between the parts: the visible text reads as the link's name does (axe: label-content-name-mismatch). */}
                <span className="dat-card__song">{dat.songName}</span> <span className="dat-card__artist">by {dat.artistName}</span>{' '}
                <span className="dat-card__edition">Edition {dat.edition}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
