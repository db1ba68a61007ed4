import { errorSentence } from '../../../lib/error-message.ts';
import { useReturnDiscountUse } from '../api/discount-codes.ts';

/**
 * The desk's choice for a fully refunded order that used a discount code (issue 27): its use
 * counts against the code's limit until the label gives it back here.
 */
export function ReturnCodeUse({ orderId, code }: { orderId: string; code: string }) {
  const give = useReturnDiscountUse(orderId);
  return (
    <>
      <button type="button" className="button button--secondary" disabled={give.isPending || give.isSuccess} onClick={() => give.mutate()}>
        Give back the use of {code}
      </button>
      <span role="status" className="admin-order__note">
        {give.isSuccess ? `The use of ${code} was given back.` : give.isError ? errorSentence(give.error, 'Could not give the use back.') : ''}
      </span>
    </>
  );
}
