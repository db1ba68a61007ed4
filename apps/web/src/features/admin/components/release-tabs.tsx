import { useEffect, useId, useRef, useState, type ComponentType, type KeyboardEvent } from 'react';
import { lazyPart } from '../../../lib/lazy-part.tsx';
import { CONSOLE_TABS, paths, type ConsoleTab } from '../../../lib/paths.ts';
import { Link, Navigate, useNavigate, useParams } from '../../../lib/router.tsx';
import { LowStockList } from './low-stock-list.tsx';
import { ReleaseForm } from './release-form.tsx';
import { ViewOrdersTab } from './view-orders-tab.tsx';

// The console's tabs (issue 18) load their code when first opened (decision 016's budget).
const consoleTab = <P extends object>(load: () => Promise<ComponentType<P>>, name: string) => lazyPart(load, { loading: `Loading ${name}…`, failed: `Could not load ${name}.` });
const Products = consoleTab(() => import('./products-tab.tsx').then((m) => m.ProductsTab), 'the products');
const Bundles = consoleTab(() => import('./bundles-tab.tsx').then((m) => m.BundlesTab), 'the bundles');
const Categories = consoleTab(() => import('./categories-tab.tsx').then((m) => m.CategoriesTab), 'the categories');
const Admins = consoleTab(() => import('./admins-tab.tsx').then((m) => m.AdminsTab), 'the admins');
const Discounts = consoleTab(() => import('./discounts-tab.tsx').then((m) => m.DiscountsTab), 'the discount codes');
const Sales = consoleTab(() => import('./sales-tab.tsx').then((m) => m.SalesTab), 'the sales');
const Shipping = consoleTab(() => import('./shipping-tax-tab.tsx').then((m) => m.ShippingTaxTab), 'shipping and tax');
const Activity = consoleTab(() => import('./activity-tab.tsx').then((m) => m.ActivityTab), 'the activity');
const Music = consoleTab(() => import('./music-tab.tsx').then((m) => m.MusicTab), 'the music');
const Drops = consoleTab(() => import('./drops-tab.tsx').then((m) => m.DropsTab), 'the drops');
const Roster = consoleTab(() => import('./roster-tab.tsx').then((m) => m.RosterTab), 'the roster');
const Announcements = consoleTab(() => import('./announcements-tab.tsx').then((m) => m.AnnouncementsTab), 'the announcements');
const Audience = consoleTab(() => import('./audience-tab.tsx').then((m) => m.AudienceTab), 'the audience');
const Content = consoleTab(() => import('./content/content-tab.tsx').then((m) => m.ContentTab), 'the content editor');

const LABELS: Record<ConsoleTab, string> = {
  release: 'Release Product',
  orders: 'View Orders',
  products: 'Products',
  bundles: 'Bundles',
  categories: 'Categories',
  music: 'Music',
  roster: 'Roster',
  drops: 'Drops',
  announcements: 'Announcements',
  content: 'Content',
  discounts: 'Discount codes',
  sales: 'Sales',
  audience: 'Audience',
  shipping: 'Shipping & tax',
  admins: 'Admins',
  activity: 'Activity',
};
const TABS = CONSOLE_TABS.map((id) => ({ id, label: LABELS[id] }));

type TabId = ConsoleTab;
const isTab = (value: string): value is TabId => (CONSOLE_TABS as readonly string[]).includes(value);

/** The browser tab's title of the console tab on screen (issue 39): "Sales · Release", and "Release" for Release Product. */
export function useConsoleTitle(): string {
  const params = useParams();
  const wanted = params.orderId !== undefined ? 'orders' : (params.tab ?? 'release');
  return isTab(wanted) && wanted !== 'release' ? `${LABELS[wanted]} · Release` : 'Release';
}
/** A tab change stays where the page is and keeps focus on the tab (the layout moves it to the heading otherwise). */
const TAB_NAVIGATION = { state: { keepFocus: true } } as const;

/**
 * The release page's tabs (spec section 2, and the console of issue 18), as the ARIA tabs pattern: one tab stop,
 * arrow keys, Home and End move between the tabs. Each tab is a link to its own address
 * (issue 29 item 6: /release, /release/orders, /release/sales, ...), so a tab can be bookmarked or
 * opened in a new browser tab, and Back returns to the tab before. A panel stays mounted once
 * opened, so a half-filled release form survives a look at the orders.
 */
export function ReleaseTabs() {
  const baseId = useId();
  const params = useParams();
  const navigate = useNavigate();
  const wanted = params.orderId !== undefined ? 'orders' : params.dropId !== undefined ? 'drops' : (params.tab ?? 'release');
  const active: TabId = isTab(wanted) ? wanted : 'release';
  const [opened, setOpened] = useState<ReadonlySet<TabId>>(new Set([active]));
  if (!opened.has(active)) setOpened(new Set([...opened, active]));
  const tabs = useRef<Partial<Record<TabId, HTMLAnchorElement | null>>>({});

  // Arrow keys move along the tabs without a history entry per key press; a click is a new entry.
  // The page changes in a transition: the new tab takes focus once it is the selected one.
  const focusWhenShown = useRef<TabId | null>(null);
  const open = (id: TabId, focus: boolean) => {
    if (focus) focusWhenShown.current = id;
    navigate(paths.releaseTab(id), { replace: true, state: TAB_NAVIGATION.state, preventScrollReset: true });
  };
  useEffect(() => {
    if (focusWhenShown.current !== active) return;
    focusWhenShown.current = null;
    tabs.current[active]?.focus();
  }, [active]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.findIndex((tab) => tab.id === active);
    const targets: Record<string, number> = {
      ArrowLeft: (index - 1 + TABS.length) % TABS.length,
      ArrowRight: (index + 1) % TABS.length,
      Home: 0,
      End: TABS.length - 1,
    };
    const target = targets[event.key];
    if (target === undefined) return;
    event.preventDefault();
    open(TABS[target]!.id, true);
  };

  if (!isTab(wanted)) return <Navigate to={paths.release} replace />;

  const tabId = (id: TabId) => `${baseId}-${id}-tab`;
  const panelId = (id: TabId) => `${baseId}-${id}-panel`;

  return (
    <div className="release-tabs">
      <div role="tablist" aria-label="Admin" className="release-tabs__list" onKeyDown={onKeyDown}>
        {TABS.map((tab) => (
          <Link
            key={tab.id}
            ref={(element) => {
              tabs.current[tab.id] = element;
            }}
            to={paths.releaseTab(tab.id)}
            state={TAB_NAVIGATION.state}
            preventScrollReset
            role="tab"
            id={tabId(tab.id)}
            className="release-tabs__tab"
            aria-selected={active === tab.id}
            aria-controls={panelId(tab.id)}
            tabIndex={active === tab.id ? 0 : -1}
          >
            {tab.label}
          </Link>
        ))}
      </div>
      <div role="tabpanel" id={panelId('release')} aria-labelledby={tabId('release')} hidden={active !== 'release'} className="release-tabs__panel">
        <ReleaseForm />
        <LowStockList />
      </div>
      <div role="tabpanel" id={panelId('orders')} aria-labelledby={tabId('orders')} hidden={active !== 'orders'} className="release-tabs__panel">
        {opened.has('orders') ? <ViewOrdersTab /> : null}
      </div>
      {(
        [
          ['products', Products.Part],
          ['bundles', Bundles.Part],
          ['categories', Categories.Part],
          ['music', Music.Part],
          ['roster', Roster.Part],
          ['drops', Drops.Part],
          ['announcements', Announcements.Part],
          ['content', Content.Part],
          ['discounts', Discounts.Part],
          ['sales', Sales.Part],
          ['audience', Audience.Part],
          ['shipping', Shipping.Part],
          ['admins', Admins.Part],
          ['activity', Activity.Part],
        ] as const
      ).map(([id, Part]) => (
        <div key={id} role="tabpanel" id={panelId(id)} aria-labelledby={tabId(id)} hidden={active !== id} className="release-tabs__panel">
          {opened.has(id) ? <Part /> : null}
        </div>
      ))}
    </div>
  );
}
