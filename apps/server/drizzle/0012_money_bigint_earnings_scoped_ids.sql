CREATE TABLE "dat_earning" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dat_earning_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"owner_id" text NOT NULL,
	"asset_id" text NOT NULL,
	"edition" integer NOT NULL,
	"cents" bigint NOT NULL,
	"reference" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dat_earning_positive" CHECK ("dat_earning"."cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "product" ALTER COLUMN "price_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "subtotal_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "shipping_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "tax_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "wallet_held_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "amount_due_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "checkout" ALTER COLUMN "charge_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order_item" ALTER COLUMN "unit_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order" ALTER COLUMN "subtotal_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order" ALTER COLUMN "shipping_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order" ALTER COLUMN "tax_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order" ALTER COLUMN "wallet_applied_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "order" ALTER COLUMN "charged_cents" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "service_write" DROP CONSTRAINT "service_write_pkey";--> statement-breakpoint
ALTER TABLE "service_write" ADD CONSTRAINT "service_write_token_id_kind_external_id_pk" PRIMARY KEY("token_id","kind","external_id");--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "payment_url" text;--> statement-breakpoint
ALTER TABLE "dat_edition" ADD COLUMN "earnings_counted_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "dat_earning" ADD CONSTRAINT "dat_earning_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dat_earning_owner_idx" ON "dat_earning" USING btree ("owner_id");--> statement-breakpoint
-- Decision 019: earnings already reported are attributed to the edition's owner now (the
-- only owner the shop knew of), for the editions the wallet shows (1 to 20).
INSERT INTO "dat_earning" ("owner_id", "asset_id", "edition", "cents", "reference")
  SELECT "owner_id", "asset_id", "edition", "earnings_cents", 'migration:0009' FROM "dat_edition"
  WHERE "owner_id" IS NOT NULL AND "earnings_cents" > 0 AND "edition" BETWEEN 1 AND 20;--> statement-breakpoint
UPDATE "dat_edition" SET "earnings_counted_cents" = "earnings_cents";
