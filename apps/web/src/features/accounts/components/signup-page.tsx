import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from '../../../lib/router.tsx';
import {
  ACCOUNT_TYPE_LABELS,
  ACCOUNT_TYPES,
  ARTIST_NAME_NOTE,
  clampCity,
  NAME_MAX,
  nameFieldFor,
  SIGNUP_MESSAGES,
  signupProblem,
  stripName,
  stripUsername,
  USERNAME_MAX,
  type AccountType,
  type SignupForm,
} from '@storefront/domain/accounts.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSite } from '../../../lib/site.ts';
import { useCreateAccount } from '../api/create-account.ts';
import type { LoginState } from '../login-state.ts';
import { ACCOUNT_TEXTS } from '../messages.ts';
import { CountryStateFields, FormAlert, SelectField, TextField } from './form-fields.tsx';
import { TermsModal } from './terms-modal.tsx';
import './accounts.css';
import { paths } from '../../../lib/paths.ts';
import { NEWS_TEXTS } from '../../../ui/follows/messages.ts';

interface Fields {
  email: string;
  password: string;
  confirmPassword: string;
  accountType: AccountType;
  name: string;
  username: string;
  city: string;
  country: string;
  state: string;
}

const EMPTY: Fields = {
  email: '',
  password: '',
  confirmPassword: '',
  accountType: 'Fan',
  name: '',
  username: '',
  city: '',
  country: '',
  state: '',
};

const cut = (value: string, max: number) => [...value].slice(0, max).join('');

function toSignupForm(fields: Fields, acceptedTerms: boolean): SignupForm {
  return {
    email: fields.email,
    password: fields.password,
    confirmPassword: fields.confirmPassword,
    name: fields.name,
    username: fields.username,
    accountType: fields.accountType,
    acceptedTerms,
    ...(fields.city.trim() ? { city: fields.city } : {}),
    ...(fields.country ? { country: fields.country } : {}),
    ...(fields.country === 'US' && fields.state ? { state: fields.state } : {}),
  };
}

/** Spec sections 2, 4 and 5, Signup: the form, then the Terms of Service modal that creates the account. */
export function SignupPage() {
  const navigate = useNavigate();
  const createAccount = useCreateAccount();
  // The blocked email domains, so the form checks in the server's order (issue 17).
  const site = useSite();
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [termsOpen, setTermsOpen] = useState(false);
  const [agreed, setAgreed] = useState(false);
  // Issue 37 (decision 074): its own box, unticked, apart from the terms.
  const [news, setNews] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [termsError, setTermsError] = useState<string | null>(null);

  const set = <K extends keyof Fields>(key: K, value: Fields[K]) => setFields((current) => ({ ...current, [key]: value }));
  const nameField = nameFieldFor(fields.accountType);

  const openTerms = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    setTermsError(null);
    setTermsOpen(true);
  };

  const create = () => {
    if (createAccount.isPending) return;
    const form = { ...toSignupForm(fields, agreed), ...(news ? { marketingConsent: true } : {}) };
    // The server's own checks, in its order. Until the shop's settings have arrived the
    // checks from the blocked domain on are the server's alone, and its message shows.
    const problem = signupProblem(form, site.data?.blockedEmailDomains);
    if (problem === SIGNUP_MESSAGES.termsNotAccepted) return setTermsError(problem);
    setTermsError(null);
    // Any other problem is in the form: close the terms so the visitor can fix it.
    const showOnForm = (message: string) => {
      setTermsOpen(false);
      setError(message);
    };
    if (problem) return showOnForm(problem);
    createAccount.mutate(form, {
      onSuccess: ({ email }) => {
        const state: Omit<LoginState, 'from'> = { verifyEmail: true, email };
        void navigate(paths.login, { state });
      },
      onError: (failure) => showOnForm(errorSentence(failure, SIGNUP_MESSAGES.failed)),
    });
  };

  return (
    <section className="page auth-page auth-page--wide">
      <h1>Sign up</h1>
      <p className="auth-note">{ACCOUNT_TEXTS.sisterProducts}</p>
      <form className="auth-form" noValidate onSubmit={openTerms}>
        <TextField
          label="Email"
          type="email"
          required
          autoComplete="email"
          inputMode="email"
          spellCheck={false}
          value={fields.email}
          onChange={(event) => set('email', event.target.value)}
        />
        <div className="auth-form__row">
          <TextField
            label="Password"
            type="password"
            required
            autoComplete="new-password"
            hint={ACCOUNT_TEXTS.passwordHint}
            value={fields.password}
            onChange={(event) => set('password', event.target.value)}
          />
          <TextField
            label="Confirm password"
            type="password"
            required
            autoComplete="new-password"
            value={fields.confirmPassword}
            onChange={(event) => set('confirmPassword', event.target.value)}
          />
        </div>
        <SelectField label="Account type" value={fields.accountType} onChange={(event) => set('accountType', event.target.value as AccountType)}>
          {ACCOUNT_TYPES.map((type) => (
            <option key={type} value={type}>
              {ACCOUNT_TYPE_LABELS[type]}
            </option>
          ))}
        </SelectField>
        <div className="auth-form__row">
          <TextField
            label={nameField.label}
            placeholder={nameField.placeholder}
            required
            autoComplete={fields.accountType === 'Fan' ? 'name' : 'organization'}
            hint={fields.accountType === 'Artist' ? ARTIST_NAME_NOTE : undefined}
            value={fields.name}
            onChange={(event) => set('name', cut(stripName(event.target.value), NAME_MAX))}
          />
          <TextField
            label="Username"
            required
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            hint="Letters and numbers only."
            value={fields.username}
            onChange={(event) => set('username', cut(stripUsername(event.target.value), USERNAME_MAX))}
          />
        </div>
        <div className="auth-form__row">
          <TextField label="City (optional)" autoComplete="address-level2" value={fields.city} onChange={(event) => set('city', clampCity(event.target.value))} />
          <CountryStateFields country={fields.country} state={fields.state} onChange={(next) => setFields((current) => ({ ...current, ...next }))} />
        </div>
        <label className="auth-check">
          <input type="checkbox" checked={news} onChange={(event) => setNews(event.target.checked)} />
          <span>{NEWS_TEXTS.box}</span>
        </label>
        <FormAlert message={error} />
        <div className="auth-actions">
          <button type="submit" className="button">
            Create
          </button>
        </div>
      </form>
      <div className="auth-secondary">
        <Link to={paths.login} className="button button--secondary">
          Back to Login
        </Link>
        <Link to={paths.privacyPolicy} className="button button--secondary">
          Privacy Policy
        </Link>
      </div>
      <TermsModal
        open={termsOpen}
        onClose={() => setTermsOpen(false)}
        agreed={agreed}
        onAgreedChange={(checked) => {
          setAgreed(checked);
          if (checked) setTermsError(null);
        }}
        onConfirm={create}
        error={termsError}
        pending={createAccount.isPending}
      />
    </section>
  );
}
