-- Issue 35 item 8 (decision 067): nothing notifies inside a transaction that holds a hot row.
-- PostgreSQL serialises the commits of every transaction that called pg_notify on one global
-- lock, so a drop's order transactions, each holding its variant's row to the commit, queued
-- behind each other's. The server announces a stock change after the commit instead
-- (live.publish.ts publishStock, coalesced per product per tick, with the units left).
CREATE OR REPLACE FUNCTION storefront_take_stock(p_variant text, p_qty integer, p_hold boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE product_variant
     SET stock = stock - p_qty,
         held = held + CASE WHEN p_hold THEN p_qty ELSE 0 END,
         sold = sold + CASE WHEN p_hold THEN 0 ELSE p_qty END,
         updated_at = now()
   WHERE id = p_variant AND stock >= p_qty;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'not enough stock of %', p_variant USING ERRCODE = 'SF001', DETAIL = p_variant;
  END IF;
END;
$$;
--> statement-breakpoint
-- A wallet change keeps being announced whichever path makes it (decision 020), except in a
-- transaction that said it announces its wallet changes itself after the commit
-- (storefront.live_after_commit = 'on', set by wallet.service.ts in the statement that changes the row).
CREATE OR REPLACE FUNCTION storefront_notify_wallet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('storefront.live_after_commit', true) IS DISTINCT FROM 'on' THEN
    PERFORM pg_notify('storefront_live', json_build_object('topic', 'wallet', 'userId', NEW.user_id, 'id', NEW.user_id)::text);
  END IF;
  RETURN NULL;
END $$;
