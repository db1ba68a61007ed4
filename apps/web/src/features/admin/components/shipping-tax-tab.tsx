import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { ShippingMethod, ShippingZone, TaxRule, WeightBracket } from '@storefront/domain/shipping-tax.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSaveShippingTax, useShippingTax, type ShippingTaxDocument } from '../api/shipping-tax.ts';
import { LoadState } from './load-state.tsx';
import './console.css';
import { centsToDecimal } from '@storefront/domain/money.ts';

/** Dollars as typed <-> cents; percent as typed <-> basis points. An unreadable entry is -1 (the server refuses it, with a sentence). */
const toCents = (text: string) => (text.trim() === '' ? 0 : Number.isFinite(Number(text)) ? Math.round(Number(text) * 100) : -1);
const fromCents = (cents: number) => centsToDecimal(cents);
const toBasisPoints = (text: string) => (text.trim() === '' ? 0 : Number.isFinite(Number(text)) ? Math.round(Number(text) * 100) : -1);
const fromBasisPoints = (bp: number) => String(bp / 100);

const newMethod = (): ShippingMethod => ({ id: 'standard', name: 'Standard', basis: 'order', firstCents: 999, extraCents: 0, stepGrams: 1000 });
const newZone = (n: number): ShippingZone => ({ id: `zone-${n}`, name: `Zone ${n}`, regions: [], ships: true, freeOverCents: null, methods: [newMethod()] });
const newRule = (): TaxRule => ({ region: '', name: '', physicalBasisPoints: 0, digitalBasisPoints: 0, shippingTaxable: false, pricesIncludeTax: false });

/**
 * Shipping zones, their methods and rates, and the tax table (issue 26, decision 051): edited as
 * one draft and saved whole with the version it was read at; an open checkout prices with the
 * new rates on its next quote.
 */
export function ShippingTaxTab() {
  const settings = useShippingTax();
  const save = useSaveShippingTax();
  const [draft, setDraft] = useState<{ config: ShippingTaxDocument; version: number } | null>(null);
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  if (!draft && settings.data) setDraft(structuredClone(settings.data));
  if (!draft) return <LoadState query={settings} label="Loading shipping and tax…" lines={6} failed="Could not load shipping and tax." />;
  const { config } = draft;
  const change = (next: ShippingTaxDocument) => {
    setDraft({ ...draft, config: next });
    setStatus(null);
  };
  const setZone = (index: number, zone: ShippingZone) => change({ ...config, zones: config.zones.map((z, i) => (i === index ? zone : z)) });
  const setRule = (index: number, rule: TaxRule) => change({ ...config, taxRules: config.taxRules.map((r, i) => (i === index ? rule : r)) });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(draft, {
      onSuccess: (saved) => {
        setDraft(structuredClone(saved));
        setStatus({ error: false, text: 'Shipping and tax saved.' });
      },
      onError: (error) => setStatus({ error: true, text: errorSentence(error, 'Could not save shipping and tax.') }),
    });
  };
  const reload = () => {
    setDraft(null);
    setStatus(null);
    void settings.refetch();
  };

  return (
    <form className="console-shipping" onSubmit={submit} noValidate>
      <h2 className="console__title">Shipping &amp; tax</h2>
      <p className="console__hint">Regions are country codes (DE), US states (US-CA) or * for everywhere else; the most specific wins. Amounts in USD, rates in percent.</p>
      <h3>Zones</h3>
      {config.zones.length === 0 ? <p>No zones: nothing can be shipped.</p> : null}
      {config.zones.map((zone, index) => (
        <ZoneEditor key={index} zone={zone} onChange={(next) => setZone(index, next)} onRemove={() => change({ ...config, zones: config.zones.filter((_, i) => i !== index) })} />
      ))}
      <button type="button" className="button button--secondary" onClick={() => change({ ...config, zones: [...config.zones, newZone(config.zones.length + 1)] })}>
        Add zone
      </button>

      <h3>Tax</h3>
      <Field label="Tax provider">
        {(id) => (
          <select id={id} value={config.taxProvider} onChange={(event) => change({ ...config, taxProvider: event.target.value as ShippingTaxDocument['taxProvider'] })}>
            <option value="builtin">Built-in table</option>
            <option value="stripe">Stripe Tax</option>
          </select>
        )}
      </Field>
      <div className="console-shipping__scroll" role="region" aria-label="Tax rules" tabIndex={0}>
        <table className="console-shipping__table">
          <caption>Tax rules</caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col">Jurisdiction</th>
              <th scope="col">Physical %</th>
              <th scope="col">Digital %</th>
              <th scope="col">Shipping taxed</th>
              <th scope="col">Prices include tax</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {config.taxRules.map((rule, index) => (
              <tr key={index}>
                <td>
                  <input aria-label={`Rule ${index + 1} region`} value={rule.region} size={6} onChange={(e) => setRule(index, { ...rule, region: e.target.value })} />
                </td>
                <td>
                  <input aria-label={`Rule ${index + 1} jurisdiction`} value={rule.name} size={12} onChange={(e) => setRule(index, { ...rule, name: e.target.value })} />
                </td>
                <td>
                  <NumberInput
                    label={`Rule ${index + 1} physical rate`}
                    value={fromBasisPoints(rule.physicalBasisPoints)}
                    onValue={(v) => setRule(index, { ...rule, physicalBasisPoints: toBasisPoints(v) })}
                  />
                </td>
                <td>
                  <NumberInput
                    label={`Rule ${index + 1} digital rate`}
                    value={fromBasisPoints(rule.digitalBasisPoints)}
                    onValue={(v) => setRule(index, { ...rule, digitalBasisPoints: toBasisPoints(v) })}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Rule ${index + 1} shipping taxed`}
                    checked={rule.shippingTaxable}
                    onChange={(e) => setRule(index, { ...rule, shippingTaxable: e.target.checked })}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Rule ${index + 1} prices include tax`}
                    checked={rule.pricesIncludeTax}
                    onChange={(e) => setRule(index, { ...rule, pricesIncludeTax: e.target.checked })}
                  />
                </td>
                <td>
                  <button type="button" className="button button--secondary" onClick={() => change({ ...config, taxRules: config.taxRules.filter((_, i) => i !== index) })}>
                    Remove rule {index + 1}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" className="button button--secondary" onClick={() => change({ ...config, taxRules: [...config.taxRules, newRule()] })}>
        Add tax rule
      </button>

      <div role="status" className={status ? (status.error ? 'notice notice--error' : 'notice') : 'notice--empty'}>
        {status?.text}
      </div>
      <div className="console-shipping__actions">
        <button type="submit" className="button" disabled={save.isPending} aria-busy={save.isPending || undefined}>
          {save.isPending ? 'Saving…' : 'Save shipping & tax'}
        </button>
        <button type="button" className="button button--secondary" onClick={reload}>
          Discard changes
        </button>
      </div>
    </form>
  );
}

function ZoneEditor({ zone, onChange, onRemove }: { zone: ShippingZone; onChange: (zone: ShippingZone) => void; onRemove: () => void }) {
  const [regions, setRegions] = useState(zone.regions.join(', '));
  const setMethod = (index: number, method: ShippingMethod) => onChange({ ...zone, methods: zone.methods.map((m, i) => (i === index ? method : m)) });
  return (
    <fieldset className="field-group console-shipping__zone">
      <legend>{zone.name || zone.id}</legend>
      <div className="console-shipping__row">
        <Field label="Zone name">{(id) => <input id={id} value={zone.name} onChange={(e) => onChange({ ...zone, name: e.target.value })} />}</Field>
        <Field label="Zone id">{(id) => <input id={id} value={zone.id} onChange={(e) => onChange({ ...zone, id: e.target.value })} />}</Field>
        <Field label="Regions">
          {(id) => (
            <input
              id={id}
              value={regions}
              onChange={(e) => {
                setRegions(e.target.value);
                onChange({ ...zone, regions: e.target.value.split(/[\s,]+/).filter(Boolean) });
              }}
            />
          )}
        </Field>
        <Field label="Free shipping from (USD, empty: never)">
          {(id) => (
            <input
              id={id}
              inputMode="decimal"
              value={zone.freeOverCents === null ? '' : fromCents(zone.freeOverCents)}
              onChange={(e) => onChange({ ...zone, freeOverCents: e.target.value.trim() === '' ? null : toCents(e.target.value) })}
            />
          )}
        </Field>
      </div>
      <label className="console-shipping__check">
        <input type="checkbox" checked={!zone.ships} onChange={(e) => onChange({ ...zone, ships: !e.target.checked })} /> We do not ship to this zone
      </label>
      {zone.methods.map((method, index) => (
        <div key={index} className="console-shipping__row">
          <Field label="Method">{(id) => <input id={id} value={method.name} onChange={(e) => setMethod(index, { ...method, name: e.target.value })} />}</Field>
          <Field label="Method id">{(id) => <input id={id} value={method.id} onChange={(e) => setMethod(index, { ...method, id: e.target.value })} />}</Field>
          <Field label="Rate by">
            {(id) => (
              <select id={id} value={method.basis} onChange={(e) => setMethod(index, { ...method, basis: e.target.value as ShippingMethod['basis'] })}>
                <option value="order">Order (flat)</option>
                <option value="item">Item (first + each extra)</option>
                <option value="weight">Weight (brackets, then each extra step)</option>
              </select>
            )}
          </Field>
          <Field label="First (USD)">
            {(id) => <NumberInput id={id} value={fromCents(method.firstCents)} onValue={(v) => setMethod(index, { ...method, firstCents: toCents(v) })} />}
          </Field>
          <Field label="Each extra (USD)">
            {(id) => <NumberInput id={id} value={fromCents(method.extraCents)} onValue={(v) => setMethod(index, { ...method, extraCents: toCents(v) })} />}
          </Field>
          {method.basis === 'weight' ? (
            <>
              <Field label="Step (grams)">
                {(id) => <NumberInput id={id} value={String(method.stepGrams)} onValue={(v) => setMethod(index, { ...method, stepGrams: Math.round(Number(v) || 0) })} />}
              </Field>
              <Field label="Weight brackets (up to grams: USD)">
                {(id) => <BracketsInput id={id} value={method.brackets ?? []} onValue={(brackets) => setMethod(index, { ...method, brackets })} />}
              </Field>
            </>
          ) : null}
          <button type="button" className="button button--secondary" onClick={() => onChange({ ...zone, methods: zone.methods.filter((_, i) => i !== index) })}>
            Remove method {method.name}
          </button>
        </div>
      ))}
      <div className="console-shipping__actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => onChange({ ...zone, methods: [...zone.methods, { ...newMethod(), id: `method-${zone.methods.length + 1}`, name: 'Express' }] })}
        >
          Add method to {zone.name || zone.id}
        </button>
        <button type="button" className="button button--secondary" onClick={onRemove}>
          Remove zone {zone.name || zone.id}
        </button>
      </div>
    </fieldset>
  );
}

/** A text field that keeps what is typed ("1." on the way to "1.5") and reports it. */
function NumberInput({ id, label, value, onValue }: { id?: string; label?: string; value: string; onValue: (text: string) => void }) {
  const [text, setText] = useState(value);
  return (
    <input
      id={id}
      aria-label={label}
      inputMode="decimal"
      size={7}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onValue(e.target.value);
      }}
    />
  );
}

/**
 * Weight brackets as typed, "500: 6.00, 1000: 8.50" (up to 500 g: $6.00, up to 1 kg: $8.50);
 * heavier orders pay the last bracket and "Each extra" per further step. An unreadable pair is
 * sent as -1 grams, which the server refuses with a sentence.
 */
const formatBrackets = (brackets: WeightBracket[]) => brackets.map((bracket) => `${bracket.upToGrams}: ${fromCents(bracket.cents)}`).join(', ');
function parseBrackets(text: string): WeightBracket[] {
  return text
    .split(/[,;\n]/)
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const match = /^(\d+)\s*g?\s*:\s*\$?([\d.]+)$/.exec(pair);
      return match ? { upToGrams: Number(match[1]), cents: toCents(match[2]!) } : { upToGrams: -1, cents: 0 };
    });
}

function BracketsInput({ id, value, onValue }: { id: string; value: WeightBracket[]; onValue: (brackets: WeightBracket[]) => void }) {
  const [text, setText] = useState(formatBrackets(value));
  return (
    <input
      id={id}
      placeholder="500: 6.00, 1000: 8.50"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onValue(parseBrackets(e.target.value));
      }}
    />
  );
}

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="checkout-field console-shipping__field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}
