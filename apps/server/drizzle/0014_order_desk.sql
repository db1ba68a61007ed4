CREATE TABLE "order_event" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "order_event_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"actor_id" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_refund" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"admin_id" text NOT NULL,
	"wallet_cents" integer NOT NULL,
	"card_cents" integer NOT NULL,
	"lines" jsonb NOT NULL,
	"status" text NOT NULL,
	"provider_refund_id" text,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "order_refund_amounts" CHECK ("order_refund"."wallet_cents" >= 0 AND "order_refund"."card_cents" >= 0 AND "order_refund"."wallet_cents" + "order_refund"."card_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "refunded_wallet_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "refunded_card_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "refund_status" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "carrier" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tracking_number" text;--> statement-breakpoint
ALTER TABLE "order_event" ADD CONSTRAINT "order_event_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_event" ADD CONSTRAINT "order_event_actor_id_user_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."user"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_refund" ADD CONSTRAINT "order_refund_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_refund" ADD CONSTRAINT "order_refund_admin_id_user_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."user"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_event_order_idx" ON "order_event" USING btree ("order_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "order_refund_key" ON "order_refund" USING btree ("order_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "order_item_name_trgm_idx" ON "order_item" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "order_search_trgm_idx" ON "order" USING gin (lower(coalesce("contact"->>'email', '') || ' ' || coalesce("contact"->>'name', '') || ' ' || coalesce("shipping"->>'name', '')) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "order_fulfilled_created_idx" ON "order" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "order"."order_fulfilled" = true;--> statement-breakpoint
CREATE INDEX "order_refunded_created_idx" ON "order" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "order"."refund_status" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "order_all_created_idx" ON "order" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_refunded_wallet_within_paid" CHECK ("order"."refunded_wallet_cents" BETWEEN 0 AND "order"."wallet_applied_cents");--> statement-breakpoint
ALTER TABLE "order" ADD CONSTRAINT "order_refunded_card_within_paid" CHECK ("order"."refunded_card_cents" BETWEEN 0 AND "order"."charged_cents");