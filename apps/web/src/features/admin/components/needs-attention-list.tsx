import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { useNeedsAttention, useResolveAttention, type AttentionItem } from '../api/needs-attention.ts';

const KIND_LABELS: Record<string, string> = {
  'checkout-stuck': 'Checkout could not be settled',
  'capture-failed': 'Paid checkout refunded: its hold could not be captured',
  'payment-without-outcome': 'Payment without an order or refund',
  'release-without-hold': 'Released units that were not held',
  'stock-held': 'Held stock put right',
  'stock-sold': 'Sold count disagrees with orders',
  'wallet-held': 'Held wallet credit disagrees with open checkouts',
};

/**
 * The console's "needs attention" list (decision 044): what the money reconciler found,
 * healed or not, until a person marks it resolved. Shown only when there is something.
 */
export function NeedsAttentionList() {
  const items = useNeedsAttention();
  if (!items.data || items.data.length === 0) return null;
  return (
    <section className="needs-attention" aria-labelledby="needs-attention-heading">
      <h2 id="needs-attention-heading">Needs attention ({items.data.length})</h2>
      <ul className="needs-attention__list">
        {items.data.map((item) => (
          <AttentionRow key={item.id} item={item} />
        ))}
      </ul>
    </section>
  );
}

function AttentionRow({ item }: { item: AttentionItem }) {
  const resolve = useResolveAttention();
  const onResolve = () => resolve.mutate(item.id, { onError: (error) => toast.error(errorSentence(error)) });
  return (
    <li className="needs-attention__item">
      <p>
        <strong>{KIND_LABELS[item.kind] ?? item.kind}</strong>
        {item.healed ? ' (put right automatically)' : ''} · {new Date(item.createdAt).toLocaleString()}
      </p>
      <p>{item.detail}</p>
      <button type="button" className="button button--secondary" onClick={onResolve} disabled={resolve.isPending}>
        Mark resolved
      </button>
    </li>
  );
}
