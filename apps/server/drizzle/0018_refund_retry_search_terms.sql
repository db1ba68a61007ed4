CREATE TABLE "order_item_term" (
	"term" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_search_term" (
	"term" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "local_refund" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"refund_id" text NOT NULL,
	"payment_intent_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_refund_refund_id_unique" UNIQUE("refund_id")
);
--> statement-breakpoint
DROP INDEX "order_item_name_trgm_idx";--> statement-breakpoint
DROP INDEX "order_search_trgm_idx";--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "gave_up_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "order_item_term_trgm_idx" ON "order_item_term" USING gin ("term" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "order_search_term_trgm_idx" ON "order_search_term" USING gin ("term" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "order_item_name_lower_idx" ON "order_item" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "order_search_text_idx" ON "order" USING btree (lower(coalesce("contact"->>'email', '') || ' ' || coalesce("contact"->>'name', '') || ' ' || coalesce("shipping"->>'name', '')));--> statement-breakpoint
-- The order desk's search terms (decision 034), kept by the database on every write of orders or
-- lines: statement triggers over the written rows, so a bulk insert adds each term once.
CREATE FUNCTION order_search_term_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_search_term (term)
  SELECT DISTINCT lower(coalesce("contact"->>'email', '') || ' ' || coalesce("contact"->>'name', '') || ' ' || coalesce("shipping"->>'name', '')) FROM written
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER order_search_term_insert AFTER INSERT ON "order" REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION order_search_term_keep();--> statement-breakpoint
CREATE TRIGGER order_search_term_update AFTER UPDATE ON "order" REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION order_search_term_keep();--> statement-breakpoint
CREATE FUNCTION order_item_term_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_item_term (term) SELECT DISTINCT lower("name") FROM written ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER order_item_term_insert AFTER INSERT ON "order_item" REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION order_item_term_keep();--> statement-breakpoint
CREATE TRIGGER order_item_term_update AFTER UPDATE ON "order_item" REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION order_item_term_keep();--> statement-breakpoint
INSERT INTO order_search_term (term)
SELECT DISTINCT lower(coalesce("contact"->>'email', '') || ' ' || coalesce("contact"->>'name', '') || ' ' || coalesce("shipping"->>'name', '')) FROM "order"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO order_item_term (term) SELECT DISTINCT lower("name") FROM order_item ON CONFLICT DO NOTHING;
