import { useState, type FormEvent } from 'react';
import type { AdminAccount } from '@storefront/domain/console.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSession } from '../../../lib/session.ts';
import { toast } from '../../../lib/toast.ts';
import { Badge } from '../../../ui/badge.tsx';
import { useAdmins, useSetAdmin } from '../api/admins.ts';
import { LoadState } from './load-state.tsx';
import './console.css';

export const FROM_SETTING_NOTE = 'Admin through the ADMIN_EMAILS setting: only that setting can revoke it.';

/** Grant and revoke admin (issue 18): audited on the server; ADMIN_EMAILS admins stay. */
export function AdminsTab() {
  const admins = useAdmins();
  const setAdmin = useSetAdmin();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [announcement, setAnnouncement] = useState('');

  const grant = (event: FormEvent) => {
    event.preventDefault();
    const value = email.trim();
    if (!value) return;
    setAdmin.mutate(
      { email: value, isAdmin: true },
      {
        onSuccess: () => {
          setEmail('');
          setAnnouncement(`${value} is now an admin.`);
          toast.success(`${value} is now an admin.`);
        },
        onError: (error) => toast.error(errorSentence(error, 'Could not make that account an admin.')),
      },
    );
  };

  const revoke = (admin: AdminAccount) => {
    setAdmin.mutate(
      { email: admin.email, isAdmin: false },
      {
        onSuccess: () => {
          setAnnouncement(`${admin.email} is no longer an admin.`);
          toast.success(`${admin.email} is no longer an admin.`);
        },
        onError: (error) => toast.error(errorSentence(error, 'Could not revoke admin.')),
      },
    );
  };

  return (
    <div className="console-admins">
      <h2 className="console__title">Admins</h2>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      <form className="console-admins__grant" onSubmit={grant}>
        <label htmlFor="console-grant-email">Make an account admin (its email)</label>
        <div className="console-admins__grant-row">
          <input id="console-grant-email" type="email" required autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} />
          <button type="submit" className="button" disabled={setAdmin.isPending}>
            Grant admin
          </button>
        </div>
      </form>
      {admins.isPending || admins.isError ? (
        <LoadState query={admins} label="Loading admins…" lines={3} failed="Could not load the admins." />
      ) : (
        <ul className="console-admins__list" aria-label="Admins">
          {admins.data.admins.map((admin) => (
            <li key={admin.userId} className="console-admin">
              <span className="console-admin__who">
                <strong>{admin.name}</strong> {admin.email}
                {admin.fromSetting ? <Badge>ADMIN_EMAILS</Badge> : null}
              </span>
              {admin.fromSetting ? (
                <span className="console__hint">{FROM_SETTING_NOTE}</span>
              ) : admin.userId === session.user?.id ? (
                <span className="console__hint">This is you: another admin can revoke it.</span>
              ) : (
                <button type="button" className="button button--danger button--small" aria-label={`Revoke admin from ${admin.email}`} onClick={() => revoke(admin)}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
