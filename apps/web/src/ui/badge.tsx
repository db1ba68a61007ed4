import type { ReactNode } from 'react';
import './badge.css';

export type BadgeTone = 'neutral' | 'pending' | 'success' | 'danger';

/** A short status label, e.g. an order's Processing / Shipped state. */
export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}
