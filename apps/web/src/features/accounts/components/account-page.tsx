import { useState, type FormEvent, type ReactNode } from 'react';
import { Navigate } from '../../../lib/router.tsx';
import { Card, DataSection, MusicSection, RoyaltiesSection, WishlistSection } from './account-cards.tsx';
import { FollowsSection } from '../../../ui/follows/components/follows-section.tsx';
import { NewsSection } from '../../../ui/follows/components/news-section.tsx';
import { ACCOUNT_TYPE_LABELS, ARTIST_NAME_NOTE, CITY_MAX, clampCity, NAME_MAX, stripName, type AccountType } from '@storefront/domain/accounts.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSession } from '../../../lib/session.ts';
import { toast } from '../../../lib/toast.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton, SkeletonCards } from '../../../ui/skeleton.tsx';
import {
  useAccountProfile,
  useChangePassword,
  useDeleteAccount,
  useDeleteSavedAddress,
  useDeletionSummary,
  useRequestEmailChange,
  useSavedAddresses,
  addressLabel,
  useUpdateProfile,
} from '../api/account.ts';
import { ACCOUNT_PAGE_TEXTS as T } from '../messages.ts';
import { CountryStateFields, FormAlert, FormStatus, OutcomePage, ProgressButton, SubmitFooter, TextField } from './form-fields.tsx';
import './accounts.css';
import { paths } from '../../../lib/paths.ts';
// From money.ts, not the catalogue module: the page's first load stays in budget.
import { formatUsd } from '@storefront/domain/money.ts';

const cut = (value: string, max: number) => [...value].slice(0, max).join('');

/**
 * My account (issue 17, decision 032): profile, email, password, saved addresses, a
 * download of everything the shop keeps, and deleting the account.
 */
export function AccountPage() {
  const session = useSession();
  const [deleted, setDeleted] = useState(false);
  if (deleted) {
    return (
      <OutcomePage className="page auth-page account-page" title="Account deleted" to={paths.home} action="Go to Home">
        <FormStatus message={T.deleted} />
      </OutcomePage>
    );
  }
  // Login brings the visitor back here afterwards.
  if (!session.isLoading && !session.user) return <Navigate to={paths.login} state={{ from: paths.account }} replace />;
  return (
    <section className="page auth-page auth-page--wide account-page">
      <h1>My account</h1>
      {session.user ? <AccountSections onDeleted={() => setDeleted(true)} /> : <AccountLoading />}
    </section>
  );
}

// Shaped like the wallet's and the shop's placeholders by design: SkeletonCards is shared, each page's card outline is its own.
function AccountLoading() {
  return (
    <LoadingRegion label="Loading your account…">
      <SkeletonCards count={3} className="account-card">
        <Skeleton width="12rem" height="1.5rem" />
        <Skeleton width="100%" height="2.75rem" />
        <Skeleton width="100%" height="2.75rem" />
      </SkeletonCards>
    </LoadingRegion>
  );
}

function AccountSections({ onDeleted }: { onDeleted: () => void }) {
  const profile = useAccountProfile();
  // Kept here: the form starts again from the saved values whenever they change (a save
  // here, or a live 'profile' event from another tab), and the note outlives that.
  const [profileSaved, setProfileSaved] = useState(false);
  if (profile.isPending) return <AccountLoading />;
  if (!profile.data) return <ErrorState title={T.loadFailed} message={errorSentence(profile.error, T.tryAgain)} onRetry={() => void profile.refetch()} />;
  const user = profile.data;
  return (
    <>
      <ProfileSection
        key={`${user.name}|${user.location}|${user.country ?? ''}|${user.state ?? ''}`}
        saved={profileSaved}
        onSaved={setProfileSaved}
        name={user.name}
        username={user.username}
        accountType={user.accountType as AccountType}
        city={user.location}
        country={user.country ?? ''}
        state={user.state ?? ''}
      />
      <MusicSection />
      <RoyaltiesSection />
      <WishlistSection />
      <FollowsSection />
      <NewsSection />
      <EmailSection email={user.email} />
      <PasswordSection />
      <AddressesSection />
      <DataSection />
      <DeleteSection onDeleted={onDeleted} />
    </>
  );
}

function ProfileSection(props: {
  name: string;
  username: string;
  accountType: AccountType;
  city: string;
  country: string;
  state: string;
  saved: boolean;
  onSaved: (saved: boolean) => void;
}) {
  const update = useUpdateProfile(() => props.onSaved(true));
  const [fields, setFields] = useState({ name: props.name, city: props.city, country: props.country, state: props.state });
  const [error, setError] = useState<string | null>(null);
  const { saved, onSaved: setSaved } = props;
  const nameLocked = props.accountType === 'Artist';
  const set = (field: keyof typeof fields, value: string) => {
    setSaved(false);
    setFields((current) => ({ ...current, [field]: value }));
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (update.isPending) return;
    if (!nameLocked && !fields.name.trim()) return setError(T.nameRequired);
    setError(null);
    update.mutate(
      {
        ...(nameLocked ? {} : { name: fields.name.trim() }),
        city: fields.city.trim(),
        country: (fields.country || null) as never,
        state: (fields.country === 'US' && fields.state ? fields.state : null) as never,
      },
      { onError: (failure) => setError(errorSentence(failure, T.saveFailed)) },
    );
  };
  return (
    <Card id="account-profile" title="Profile">
      <dl className="account-facts">
        <div>
          <dt>Username</dt>
          <dd>{props.username}</dd>
        </div>
        <div>
          <dt>Account type</dt>
          <dd>{ACCOUNT_TYPE_LABELS[props.accountType] ?? props.accountType}</dd>
        </div>
      </dl>
      <p className="auth-field__hint">{T.usernameFixed}</p>
      <form className="auth-form" noValidate onSubmit={submit}>
        <TextField
          label="Name"
          autoComplete="name"
          value={fields.name}
          readOnly={nameLocked}
          hint={nameLocked ? ARTIST_NAME_NOTE : `Letters, digits and spaces, at most ${NAME_MAX}.`}
          onChange={(event) => set('name', cut(stripName(event.target.value), NAME_MAX))}
        />
        <div className="auth-form__row">
          <TextField
            label="City (optional)"
            autoComplete="address-level2"
            value={fields.city}
            hint={`At most ${CITY_MAX} characters.`}
            onChange={(event) => set('city', clampCity(event.target.value))}
          />
          <CountryStateFields
            country={fields.country}
            state={fields.state}
            onChange={(next) => {
              setSaved(false);
              setFields((current) => ({ ...current, ...next }));
            }}
          />
        </div>
        <SubmitFooter error={error} status={saved ? T.profileSaved : null} pending={update.isPending} pendingLabel="Saving…">
          Save profile
        </SubmitFooter>
      </form>
    </Card>
  );
}

function EmailSection({ email }: { email: string }) {
  const request = useRequestEmailChange();
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (request.isPending) return;
    if (!newEmail.trim() || !password) return setError(T.emailFieldsMissing);
    setError(null);
    setSentTo(null);
    request.mutate(
      { newEmail: newEmail.trim(), password },
      {
        onSuccess: (answer) => {
          setSentTo(answer.sentTo);
          setPassword('');
        },
        onError: (failure) => setError(errorSentence(failure, T.emailFailed)),
      },
    );
  };
  return (
    <Card id="account-email" title="Email">
      <p>
        Your email address is <strong>{email}</strong>.
      </p>
      <form className="auth-form" noValidate onSubmit={submit}>
        <div className="auth-form__row">
          <TextField label="New email" type="email" autoComplete="email" value={newEmail} onChange={(event) => setNewEmail(event.target.value)} />
          <TextField label="Current password" type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} />
        </div>
        <SubmitFooter error={error} status={sentTo ? T.emailSent(sentTo) : null} statusTone="info" pending={request.isPending} pendingLabel="Sending…">
          Change email
        </SubmitFooter>
      </form>
    </Card>
  );
}

function PasswordSection() {
  const change = useChangePassword();
  const [fields, setFields] = useState({ current: '', next: '', confirm: '' });
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const set = (field: keyof typeof fields, value: string) => setFields((current) => ({ ...current, [field]: value }));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (change.isPending) return;
    setDone(false);
    if (!fields.current || !fields.next || !fields.confirm) return setError(T.passwordFieldsMissing);
    if (fields.next !== fields.confirm) return setError('Passwords do not match.');
    setError(null);
    change.mutate(
      { currentPassword: fields.current, newPassword: fields.next },
      {
        onSuccess: () => {
          setDone(true);
          setFields({ current: '', next: '', confirm: '' });
        },
        onError: (failure) => setError(errorSentence(failure, T.passwordFailed)),
      },
    );
  };
  return (
    <Card id="account-password" title="Password">
      <p className="auth-field__hint">{T.passwordNote}</p>
      <form className="auth-form" noValidate onSubmit={submit}>
        <TextField label="Current password" type="password" autoComplete="current-password" value={fields.current} onChange={(event) => set('current', event.target.value)} />
        <div className="auth-form__row">
          <TextField
            label="New password"
            type="password"
            autoComplete="new-password"
            hint="At least 8 characters."
            value={fields.next}
            onChange={(event) => set('next', event.target.value)}
          />
          <TextField label="Confirm new password" type="password" autoComplete="new-password" value={fields.confirm} onChange={(event) => set('confirm', event.target.value)} />
        </div>
        <SubmitFooter error={error} status={done ? T.passwordChanged : null} pending={change.isPending} pendingLabel="Saving…">
          Change password
        </SubmitFooter>
      </form>
    </Card>
  );
}

/** The part of a section that needs `query`'s data: a placeholder while it loads, its failure with a Retry, else `children(data)`. */
function WithData<D>({
  query,
  loading,
  height,
  failed,
  children,
}: {
  query: { isPending: boolean; data: D | undefined; refetch: () => unknown };
  loading: string;
  height: string;
  failed: string;
  children: (data: D) => ReactNode;
}) {
  if (query.isPending)
    return (
      <LoadingRegion label={loading}>
        <Skeleton width="100%" height={height} />
      </LoadingRegion>
    );
  if (!query.data) return <ErrorState title={failed} message={T.tryAgain} onRetry={() => void query.refetch()} />;
  return children(query.data);
}

function AddressesSection() {
  const addresses = useSavedAddresses();
  const remove = useDeleteSavedAddress();
  const [error, setError] = useState<string | null>(null);
  const body = (
    <WithData query={addresses} loading="Loading your addresses…" height="2.5rem" failed={T.addressesFailed}>
      {(list) =>
        list.length === 0 ? (
          <p>{T.noAddresses}</p>
        ) : (
          <ul className="account-addresses">
            {list.map((address, index) => {
              const label = addressLabel(address);
              const deleting = remove.isPending && remove.variables === address.id;
              return (
                <li key={address.id} className="account-addresses__item">
                  <span>
                    {label}
                    {index === 0 ? <span className="account-addresses__default"> (used last: the checkout’s default)</span> : null}
                  </span>
                  <ProgressButton
                    type="button"
                    className="button button--secondary"
                    aria-label={`Delete address ${label}`}
                    pending={deleting}
                    pendingLabel="Deleting…"
                    disabled={remove.isPending}
                    onClick={() => {
                      setError(null);
                      remove.mutate(address.id, {
                        onSuccess: () => toast.success(T.addressDeleted),
                        onError: (failure) => setError(errorSentence(failure, T.addressDeleteFailed)),
                      });
                    }}
                  >
                    Delete
                  </ProgressButton>
                </li>
              );
            })}
          </ul>
        )
      }
    </WithData>
  );
  return (
    <Card id="account-addresses" title="Saved addresses">
      <p className="auth-field__hint">{T.addressesNote}</p>
      {body}
      <FormAlert message={error} />
    </Card>
  );
}

function DeleteSection({ onDeleted }: { onDeleted: () => void }) {
  const summary = useDeletionSummary();
  const remove = useDeleteAccount();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);

  const statement = (
    <WithData query={summary} loading="Loading what deleting means for you…" height="4rem" failed={T.summaryFailed}>
      {(s) => (
        <ul className="account-consequences">
          <li>{T.consequenceSignOut}</li>
          <li>{s.walletCents + s.heldCents > 0 ? T.consequenceWallet(formatUsd(s.walletCents + s.heldCents)) : T.consequenceNoWallet}</li>
          <li>{T.consequenceOrders(s.orders, s.openOrders)}</li>
          <li>{T.consequenceProfile}</li>
          <li>{T.consequenceDownload}</li>
        </ul>
      )}
    </WithData>
  );
  const blocked = summary.data?.isAdmin ? T.adminBlocked : summary.data?.pendingPayment ? T.paymentBlocked : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (remove.isPending) return;
    if (!password) return setError(T.deletePasswordMissing);
    if (confirm.trim() !== 'DELETE') return setError('Please type DELETE to confirm.');
    setError(null);
    remove.mutate({ password, confirm: 'DELETE' }, { onSuccess: onDeleted, onError: (failure) => setError(errorSentence(failure, T.deleteFailed)) });
  };

  return (
    <Card id="account-delete" title="Delete my account">
      <p>{T.deleteIntro}</p>
      {statement}
      {blocked ? <FormStatus message={blocked} tone="info" /> : null}
      {!open ? (
        <div className="auth-actions">
          <button type="button" className="button button--danger" disabled={Boolean(blocked) || !summary.data} onClick={() => setOpen(true)}>
            Delete my account…
          </button>
        </div>
      ) : (
        <form className="auth-form" noValidate onSubmit={submit}>
          <div className="auth-form__row">
            <TextField label="Your password" type="password" autoComplete="current-password" value={password} autoFocus onChange={(event) => setPassword(event.target.value)} />
            <TextField label="Type DELETE to confirm" autoComplete="off" value={confirm} onChange={(event) => setConfirm(event.target.value)} />
          </div>
          <FormAlert message={error} />
          <div className="auth-actions">
            <ProgressButton type="submit" className="button button--danger" pending={remove.isPending} pendingLabel="Deleting…" disabled={remove.isPending || Boolean(blocked)}>
              Delete my account permanently
            </ProgressButton>
            <button
              type="button"
              className="button button--secondary"
              onClick={() => {
                setOpen(false);
                setError(null);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </Card>
  );
}
