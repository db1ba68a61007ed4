-- Takes a variant's stock for an order (hold false) or a card checkout's hold (hold true),
-- or raises SQLSTATE SF001 naming the variant when its row has too few (decision 044). It is
-- the last statement of the order's transaction, sent with COMMIT in one round trip, so the
-- variant row (a drop's hottest) is locked for this statement and the commit only. "Short"
-- is this UPDATE's own answer. The sale is announced on the live channel (live.publish.ts,
-- LIVE_CHANNEL; delivered on commit).
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
  PERFORM pg_notify('storefront_live', '{"topic":"products"}');
END;
$$;
