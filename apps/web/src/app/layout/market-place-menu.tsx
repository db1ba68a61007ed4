import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import links from '../config/links.json';

function siteLinks(root: HTMLElement | null): HTMLAnchorElement[] {
  return Array.from(root?.querySelectorAll<HTMLAnchorElement>('a') ?? []);
}

/**
 * The TDC MARKET PLACE dropdown: a disclosure button and a list of the sister sites,
 * each opening in a new tab. Enter/Space toggles, Arrow keys move between sites,
 * Escape closes and returns focus to the button, a click or focus elsewhere closes it.
 */
const [first, ...others] = links.marketPlace.label.split(' ');
const rest = others.length > 0 ? ` ${others.join(' ')}` : '';

export function MarketPlaceMenu() {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const focusFirstOnOpen = useRef(false);
  const listId = useId();

  useEffect(() => {
    if (!open) return;
    if (focusFirstOnOpen.current) {
      focusFirstOnOpen.current = false;
      siteLinks(rootRef.current)[0]?.focus();
    }
    const closeOnOutsidePointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', closeOnOutsidePointer);
    return () => document.removeEventListener('pointerdown', closeOnOutsidePointer);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape' && open) {
      event.stopPropagation();
      setOpen(false);
      buttonRef.current?.focus();
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    if (!open) {
      focusFirstOnOpen.current = true;
      setOpen(true);
      return;
    }
    const items = siteLinks(rootRef.current);
    const index = items.indexOf(document.activeElement as HTMLAnchorElement);
    const step = event.key === 'ArrowDown' ? 1 : -1;
    const next = index === -1 ? 0 : (index + step + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <div
      ref={rootRef}
      className="market-menu"
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (open && !rootRef.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className="site-nav__link market-menu__button"
        aria-expanded={open}
        aria-controls={listId}
        title={links.marketPlace.label}
        onClick={() => setOpen((wasOpen) => !wasOpen)}
      >
        {/* "TDC", then the rest, which narrow desktops hide from sight but not from the name. */}
        {first}
        <span className="market-menu__rest">{rest}</span>
        <span className="market-menu__chevron" aria-hidden="true" />
      </button>
      <ul id={listId} className="popover market-menu__list" hidden={!open}>
        {links.marketPlace.sites.map((site) => (
          <li key={site.url}>
            <a className="market-menu__link" href={site.url} target="_blank" rel="noopener noreferrer">
              {site.label}
              <span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
