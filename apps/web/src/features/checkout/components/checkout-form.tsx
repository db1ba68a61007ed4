import { useId, useMemo, useState, type FormEvent } from 'react';
import { Link } from '../../../lib/router.tsx';
import { cartItemsOf, type CartLine } from '@storefront/domain/cart.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { giftRecipientProblem } from '@storefront/domain/gift-cards.ts';
import type { CurrentUser } from '@storefront/sdk/auth.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { DropLineLinks } from './drop-line-links.tsx';
import { useWalletPreference, writeWalletPreference } from '../../../lib/wallet-preference.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { outOfStockLines, unavailableItems, useCheckoutQuote } from '../api/quote-checkout.ts';
import { usePlaceOrder } from '../api/use-place-order.ts';
import { addressLabel, useSavedAddresses, type SavedAddress } from '../api/saved-addresses.ts';
import { checkCheckoutForm, emptyShipping, type ContactValues, type FieldKey, type ShippingValues } from '../checkout-form-values.ts';
import { SHIPPING_COUNTRIES } from '../countries.ts';
import { CHECKOUT_TEXTS } from '../messages.ts';
import { InputField, SelectField } from './checkout-fields.tsx';
import { GiftCardFields, type GiftValues } from './gift-card-fields.tsx';
import { OrderSummary } from './order-summary.tsx';
import { OutOfStockItems } from './out-of-stock-items.tsx';
import { UnavailableItems } from './unavailable-items.tsx';
import { paths } from '../../../lib/paths.ts';
import { NEWS_TEXTS } from '../../../ui/follows/messages.ts';

interface CheckoutFormProps {
  user: CurrentUser;
  lines: CartLine[];
}

export function CheckoutForm({ user, lines }: CheckoutFormProps) {
  const formId = useId();
  const idOf = (key: FieldKey) => `${formId}-${key.replace('.', '-')}`;
  const messageId = `${formId}-message`;
  const [contact, setContact] = useState<ContactValues>({ name: user.name, email: user.email, phone: '' });
  const [shipping, setShipping] = useState<ShippingValues>(() => emptyShipping(user.name));
  // The last address used is the default: filled in once it arrives, unless the buyer typed.
  const saved = useSavedAddresses();
  const [prefilled, setPrefilled] = useState(false);
  const [savedChoice, setSavedChoice] = useState('');
  if (!prefilled && saved.data) {
    setPrefilled(true);
    const last = saved.data[0];
    const untouched = JSON.stringify(shipping) === JSON.stringify(emptyShipping(user.name));
    if (last && untouched) {
      setShipping(shippingOf(last));
      setSavedChoice(last.id);
    }
  }
  const chooseSaved = (id: string) => {
    setSavedChoice(id);
    const address = saved.data?.find((candidate) => candidate.id === id);
    setShipping(address ? shippingOf(address) : emptyShipping(user.name));
  };
  // Follows the remembered answer, which the cart's dialog may change while this page is open.
  const useWallet = useWalletPreference() !== 'stripe';
  const [problem, setProblem] = useState<{ message: string; field?: FieldKey | undefined } | null>(null);

  const items = useMemo(() => cartItemsOf(lines), [lines]);
  // Nothing ships (issue 28): the server's quote says each line is digital; no address is asked for then.
  const [digitalOnly, setDigitalOnly] = useState(false);
  // The address decides the zone and the tax (issue 26): the quote follows the country and state as they change.
  const destination = useMemo(() => (digitalOnly ? undefined : { country: shipping.country, state: shipping.state.trim() }), [digitalOnly, shipping.country, shipping.state]);
  // A method is chosen for one destination: another country or state (maybe another zone) starts from the zone's first.
  const [choice, setChoice] = useState<{ where: string; id: string } | null>(null);
  const where = destination ? `${destination.country}|${destination.state}` : '';
  if (choice && choice.where !== where) setChoice(null);
  const methodId = choice?.where === where ? choice.id : undefined;
  const setMethodId = (id: string) => setChoice({ where, id });
  // A discount code (issue 27): typed, then applied; the quote says whether it applies and why not.
  const [codeDraft, setCodeDraft] = useState('');
  const [discountCode, setDiscountCode] = useState('');
  const quote = useCheckoutQuote({ items, useWallet, destination, shippingMethodId: methodId, ...(discountCode ? { discountCode } : {}) });
  const methods = quote.data?.shippingMethods ?? [];
  const quotedDigitalOnly = quote.data && !quote.isPlaceholderData ? shipsNothing(quote.data.lines) : digitalOnly;
  if (quotedDigitalOnly !== digitalOnly) setDigitalOnly(quotedDigitalOnly);
  const applyCode = () => setDiscountCode(codeDraft.trim());
  const removeCode = () => {
    setCodeDraft('');
    setDiscountCode('');
  };
  // A gift card (issue 27): its recipient and message; paid by card alone (the quote says why).
  const giftCard = quote.data?.giftCard === true;
  const [gift, setGift] = useState<GiftValues>({ recipientEmail: '', message: '' });
  const [giftProblem, setGiftProblem] = useState<string | null>(null);
  // Issue 37 (decision 074): the order follows the artists of what was bought, unless unticked.
  const [followArtists, setFollowArtists] = useState(true);
  // Marketing consent (decision 074): its own box, unticked, recorded apart from the order.
  const [marketingConsent, setMarketingConsent] = useState(false);
  const placement = usePlaceOrder();
  const unavailable = unavailableItems(quote.error);
  const short = outOfStockLines(quote.error);
  const message = problem?.message ?? giftProblem ?? placement.error;
  const errorFor = (key: FieldKey) => (problem?.field === key ? messageId : undefined);

  const contactInput = (key: keyof ContactValues) => ({
    id: idOf(`contact.${key}`),
    errorId: errorFor(`contact.${key}`),
    value: contact[key],
    onChange: (event: { target: { value: string } }) => setContact((current) => ({ ...current, [key]: event.target.value })),
  });
  const shippingInput = (key: keyof ShippingValues) => ({
    id: idOf(`shipping.${key}`),
    errorId: errorFor(`shipping.${key}`),
    value: shipping[key],
    onChange: (event: { target: { value: string } }) => setShipping((current) => ({ ...current, [key]: event.target.value })),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (placement.busy) return;
    placement.setError(null);
    const check = checkCheckoutForm(items.length, contact, shipping, !digitalOnly);
    if (!check.ok) {
      setProblem(check);
      if (check.field) document.getElementById(idOf(check.field))?.focus();
      return;
    }
    setProblem(null);
    const giftCheck = giftCard ? giftRecipientProblem(gift) : null;
    setGiftProblem(giftCheck);
    if (giftCheck) {
      document.getElementById(`${formId}-gift-email`)?.focus();
      return;
    }
    // The summary says why there is no total yet (loading, refused items, an error).
    if (!quote.data || quote.isPlaceholderData || quote.isError) return;
    placement.place({
      items,
      useWallet: useWallet && !giftCard,
      contact: check.contact,
      shipping: check.shipping,
      quote: quote.data,
      shippingMethodId: quote.data.shippingMethodId ?? undefined,
      followArtists,
      marketingConsent,
      ...(giftCard ? { gift: { recipientEmail: gift.recipientEmail.trim(), message: gift.message } } : {}),
    });
  };

  const toggleWallet = (checked: boolean) => writeWalletPreference(checked ? 'wallet' : 'stripe');

  return (
    <form className="checkout-layout" noValidate onSubmit={submit} aria-busy={placement.busy || undefined}>
      <div className="checkout-main">
        <fieldset className="field-group checkout-fieldset">
          <legend className="checkout-fieldset__legend">Contact</legend>
          <InputField label="Full name" autoComplete="name" maxLength={100} {...contactInput('name')} />
          <InputField label="Email" type="email" autoComplete="email" inputMode="email" spellCheck={false} maxLength={254} {...contactInput('email')} />
          <InputField label="Phone (optional)" type="tel" autoComplete="tel" maxLength={40} {...contactInput('phone')} />
        </fieldset>
        {digitalOnly ? (
          <p className="checkout-digital-note">{giftCard ? CHECKOUT_TEXTS.giftCardShipsNothing : CHECKOUT_TEXTS.nothingShips}</p>
        ) : (
          <fieldset className="field-group checkout-fieldset">
            <legend className="checkout-fieldset__legend">Shipping address</legend>
            {saved.data && saved.data.length > 0 ? (
              <SelectField label="Saved addresses" id={`${formId}-saved`} value={savedChoice} onChange={(event) => chooseSaved(event.target.value)}>
                {saved.data.map((address) => (
                  <option key={address.id} value={address.id}>
                    {addressLabel(address)}
                  </option>
                ))}
                <option value="">A new address</option>
              </SelectField>
            ) : null}
            {saved.data && saved.data.length > 0 ? (
              <p className="checkout-saved-note">
                <Link to={paths.account}>Delete saved addresses in My account</Link>
              </p>
            ) : null}
            <InputField label="Recipient name" autoComplete="shipping name" maxLength={100} {...shippingInput('name')} />
            <InputField label="Address line 1" autoComplete="shipping address-line1" maxLength={200} {...shippingInput('line1')} />
            <InputField label="Address line 2 (optional)" autoComplete="shipping address-line2" maxLength={200} {...shippingInput('line2')} />
            <div className="checkout-row">
              <InputField label="City" autoComplete="shipping address-level2" maxLength={100} {...shippingInput('city')} />
              <InputField label="State / region" autoComplete="shipping address-level1" maxLength={100} {...shippingInput('state')} />
            </div>
            <div className="checkout-row">
              <InputField label="Postal code" autoComplete="shipping postal-code" maxLength={20} {...shippingInput('postal_code')} />
              <SelectField label="Country" autoComplete="shipping country" {...shippingInput('country')}>
                {SHIPPING_COUNTRIES.map((country) => (
                  <option key={country.code} value={country.code}>
                    {country.name}
                  </option>
                ))}
              </SelectField>
            </div>
          </fieldset>
        )}
        {giftCard ? <GiftCardFields idPrefix={formId} value={gift} onChange={setGift} errorId={giftProblem ? messageId : undefined} disabled={placement.busy} /> : null}
        {methods.length > 0 ? (
          <fieldset className="field-group checkout-fieldset">
            <legend className="checkout-fieldset__legend">Shipping method</legend>
            {methods.map((method) => (
              <label key={method.id} className="checkout-method">
                <input
                  type="radio"
                  name={`${formId}-method`}
                  value={method.id}
                  checked={(methodId ?? quote.data?.shippingMethodId ?? methods[0]?.id) === method.id}
                  disabled={placement.busy}
                  onChange={() => setMethodId(method.id)}
                />
                <span>
                  {method.name} — {method.shippingCents === 0 ? 'Free' : formatUsd(method.shippingCents)}
                </span>
              </label>
            ))}
          </fieldset>
        ) : null}
      </div>

      <aside className="panel checkout-summary" aria-labelledby={`${formId}-summary`}>
        <h2 id={`${formId}-summary`} className="checkout-summary__title">
          Order summary
        </h2>
        <div className="checkout-toggle">
          <label className="checkout-toggle__label">
            <input
              type="checkbox"
              role="switch"
              checked={useWallet}
              disabled={placement.busy}
              aria-describedby={`${formId}-wallet-hint`}
              onChange={(event) => toggleWallet(event.target.checked)}
            />
            <span>{CHECKOUT_TEXTS.walletToggle}</span>
          </label>
          <p id={`${formId}-wallet-hint`} className="checkout-toggle__hint">
            {quote.data?.walletRefused ?? CHECKOUT_TEXTS.walletToggleHint}
          </p>
        </div>

        <div className="checkout-discount">
          <label htmlFor={`${formId}-code`} className="checkout-field__label">
            {CHECKOUT_TEXTS.discountLabel}
          </label>
          <div className="checkout-discount__row">
            <input
              id={`${formId}-code`}
              className="field-control checkout-field__control"
              value={codeDraft}
              maxLength={64}
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              disabled={placement.busy}
              aria-describedby={`${formId}-code-status`}
              aria-invalid={quote.data?.discountRefused ? true : undefined}
              onChange={(event) => setCodeDraft(event.target.value)}
              onKeyDown={(event) => {
                if (event.key !== 'Enter') return;
                event.preventDefault();
                applyCode();
              }}
            />
            {discountCode && codeDraft.trim() === discountCode ? (
              <button type="button" className="button button--secondary" disabled={placement.busy} onClick={removeCode}>
                {CHECKOUT_TEXTS.discountRemove}
              </button>
            ) : (
              <button type="button" className="button button--secondary" disabled={placement.busy || !codeDraft.trim()} onClick={applyCode}>
                {CHECKOUT_TEXTS.discountApply}
              </button>
            )}
          </div>
          <p
            id={`${formId}-code-status`}
            role="status"
            className={quote.data?.discountRefused ? 'checkout-discount__status checkout-discount__status--refused' : 'checkout-discount__status'}
          >
            {discountCode && quote.data && !quote.isPlaceholderData
              ? (quote.data.discountRefused ?? (quote.data.discountCode ? CHECKOUT_TEXTS.discountApplied(quote.data.discountCode) : ''))
              : ''}
          </p>
        </div>

        {unavailable.length > 0 ? (
          <UnavailableItems ids={unavailable} lines={lines} />
        ) : short.length > 0 ? (
          <OutOfStockItems short={short} lines={lines} />
        ) : quote.isError ? (
          <ErrorState title={CHECKOUT_TEXTS.quoteFailed} message={errorSentence(quote.error)} onRetry={() => void quote.refetch()} />
        ) : quote.data ? (
          <div aria-busy={quote.isPlaceholderData || undefined} className={quote.isPlaceholderData ? 'checkout-summary--stale' : undefined}>
            <OrderSummary quote={quote.data} />
          </div>
        ) : (
          <LoadingRegion label="Working out your total…">
            <SkeletonText lines={5} />
          </LoadingRegion>
        )}

        <div id={messageId} role="alert" className={message ? 'notice checkout-notice notice--error' : 'notice--empty'}>
          {message}
        </div>
        <DropLineLinks shown={Boolean(placement.error)} />
        <label className="checkout-toggle__label checkout-follow">
          <input type="checkbox" checked={followArtists} disabled={placement.busy} onChange={(event) => setFollowArtists(event.target.checked)} />
          <span>{CHECKOUT_TEXTS.followArtists}</span>
        </label>
        <label className="checkout-toggle__label checkout-follow">
          <input type="checkbox" checked={marketingConsent} disabled={placement.busy} onChange={(event) => setMarketingConsent(event.target.checked)} />
          <span>{NEWS_TEXTS.box}</span>
        </label>
        <button type="submit" className="button checkout-submit" disabled={placement.busy} aria-busy={placement.busy || undefined}>
          {placement.busy ? 'Placing order…' : 'Place order'}
        </button>
      </aside>
    </form>
  );
}

/** Every line is files (issue 28): nothing to ship, so no address. */
function shipsNothing(lines: readonly { digital?: boolean | undefined }[]): boolean {
  return lines.length > 0 && lines.every((line) => line.digital === true);
}

function shippingOf(address: SavedAddress): ShippingValues {
  const { name, line1, line2, city, state, postal_code, country } = address;
  return { name, line1, line2, city, state, postal_code, country };
}
