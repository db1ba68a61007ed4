import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { LowStockList } from './low-stock-list.tsx';
import { ReleaseForm } from './release-form.tsx';
import { ViewOrdersTab } from './view-orders-tab.tsx';

const TABS = [
  { id: 'release', label: 'Release Product' },
  { id: 'orders', label: 'View Orders' },
] as const;

type TabId = (typeof TABS)[number]['id'];

/**
 * The release page's two tabs (spec section 2), as the ARIA tabs pattern: one tab stop,
 * arrow keys, Home and End move between the tabs. A panel stays mounted once opened, so
 * a half-filled release form survives a look at the orders.
 */
export function ReleaseTabs() {
  const baseId = useId();
  const [active, setActive] = useState<TabId>('release');
  const [ordersOpened, setOrdersOpened] = useState(false);
  const tabs = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});

  const open = (id: TabId, focus: boolean) => {
    setActive(id);
    if (id === 'orders') setOrdersOpened(true);
    if (focus) tabs.current[id]?.focus();
  };

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

  const tabId = (id: TabId) => `${baseId}-${id}-tab`;
  const panelId = (id: TabId) => `${baseId}-${id}-panel`;

  return (
    <div className="release-tabs">
      <div role="tablist" aria-label="Admin" className="release-tabs__list" onKeyDown={onKeyDown}>
        {TABS.map((tab) => (
          <button
            key={tab.id}
            ref={(element) => {
              tabs.current[tab.id] = element;
            }}
            type="button"
            role="tab"
            id={tabId(tab.id)}
            className="release-tabs__tab"
            aria-selected={active === tab.id}
            aria-controls={panelId(tab.id)}
            tabIndex={active === tab.id ? 0 : -1}
            onClick={() => open(tab.id, false)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={panelId('release')} aria-labelledby={tabId('release')} hidden={active !== 'release'} className="release-tabs__panel">
        <ReleaseForm />
        <LowStockList />
      </div>
      <div role="tabpanel" id={panelId('orders')} aria-labelledby={tabId('orders')} hidden={active !== 'orders'} className="release-tabs__panel">
        {ordersOpened ? <ViewOrdersTab /> : null}
      </div>
    </div>
  );
}
