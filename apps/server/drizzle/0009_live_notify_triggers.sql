-- Live announcements the database makes itself (decision 020), on the channel of
-- apps/server/src/live/live.publish.ts, inside the changing transaction (heard on commit).
-- A wallet whose balance or hold changed: the owner's open pages refetch it, whichever
-- code path (order, hold, release, refund, grant, a later one) changed it.
CREATE FUNCTION storefront_notify_wallet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('storefront_live', json_build_object('topic', 'wallet', 'userId', NEW.user_id, 'id', NEW.user_id)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER wallet_live_insert AFTER INSERT ON "wallet" FOR EACH ROW EXECUTE FUNCTION storefront_notify_wallet();
--> statement-breakpoint
CREATE TRIGGER wallet_live_update AFTER UPDATE ON "wallet" FOR EACH ROW
  WHEN (OLD.balance_cents IS DISTINCT FROM NEW.balance_cents OR OLD.held_cents IS DISTINCT FROM NEW.held_cents)
  EXECUTE FUNCTION storefront_notify_wallet();
--> statement-breakpoint
-- A session that ends (sign-out, revocation, password reset, deleted account or row, a new
-- token or owner): the live streams it opened are closed. A session whose expiry is brought
-- forward: its streams close at the new expiry. Only the session's id is announced, never
-- its token; these events are for the server processes and are never sent to a client.
CREATE FUNCTION storefront_notify_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('storefront_live', json_build_object('topic', 'session-ended', 'id', OLD.id)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION storefront_notify_session_shortened() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('storefront_live', json_build_object('topic', 'session-expiry', 'id', NEW.id, 'expiresAt', floor(extract(epoch FROM NEW.expires_at) * 1000))::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER session_live_delete AFTER DELETE ON "session" FOR EACH ROW EXECUTE FUNCTION storefront_notify_session_ended();
--> statement-breakpoint
CREATE TRIGGER session_live_replaced AFTER UPDATE ON "session" FOR EACH ROW
  WHEN (NEW.token IS DISTINCT FROM OLD.token OR NEW.user_id IS DISTINCT FROM OLD.user_id)
  EXECUTE FUNCTION storefront_notify_session_ended();
--> statement-breakpoint
CREATE TRIGGER session_live_shortened AFTER UPDATE ON "session" FOR EACH ROW
  WHEN (NEW.expires_at < OLD.expires_at AND NEW.token IS NOT DISTINCT FROM OLD.token AND NEW.user_id IS NOT DISTINCT FROM OLD.user_id)
  EXECUTE FUNCTION storefront_notify_session_shortened();
