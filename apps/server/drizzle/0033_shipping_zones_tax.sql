CREATE TABLE "shipping_tax_settings" (
	"id" text PRIMARY KEY DEFAULT 'main' NOT NULL,
	"config" jsonb NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shipping_tax_settings_one_row" CHECK ("shipping_tax_settings"."id" = 'main')
);
--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "tax_jurisdiction" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "tax_included_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "shipping_method" text;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "tax_calculation_id" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tax_jurisdiction" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tax_included_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "shipping_method" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tax_calculation_id" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "tax_transaction_id" text;