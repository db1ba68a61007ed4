-- Issue 25, security 11 (decision 042): a change of what makes an account an admin (its role,
-- or its email and verification, which ADMIN_EMAILS reads) is announced on the live channel
-- of apps/server/src/live/live.publish.ts, inside the changing transaction, as
-- storefront_notify_session_ended (migration 0009) announces ended sessions. Every process
-- closes the account's open streams; they reconnect and are authorised as the account is now.
-- Only the account's id is announced; the event is never sent to a client.
CREATE FUNCTION storefront_notify_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('storefront_live', json_build_object('topic', 'account-changed', 'userId', NEW.id, 'id', NEW.id)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER user_live_rights_changed AFTER UPDATE ON "user" FOR EACH ROW
  WHEN (NEW.role IS DISTINCT FROM OLD.role OR NEW.email IS DISTINCT FROM OLD.email OR NEW.email_verified IS DISTINCT FROM OLD.email_verified)
  EXECUTE FUNCTION storefront_notify_account_changed();
