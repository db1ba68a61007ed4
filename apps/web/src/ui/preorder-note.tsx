import { preorderLabel } from '@storefront/domain/preorders.ts';
import './preorder-note.css';

/**
 * "Preorder - ships Mar 5, 2027" (issue 27, decision 054): on the shop card, the product page, the
 * cart, the checkout's lines, the confirmation and My Orders. Nothing for an item that is out.
 */
export function PreorderNote({ date, as: Tag = 'span' }: { date: string | null | undefined; as?: 'span' | 'p' }) {
  if (!date) return null;
  return <Tag className="preorder-note">{preorderLabel(date)}</Tag>;
}
