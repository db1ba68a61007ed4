CREATE TABLE "discount_code" (
	"id" text PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"kind" text NOT NULL,
	"value" bigint NOT NULL,
	"scope" text NOT NULL,
	"category_id" text,
	"product_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"min_subtotal_cents" bigint DEFAULT 0 NOT NULL,
	"starts_at" timestamp with time zone,
	"ends_at" timestamp with time zone,
	"use_limit" integer,
	"uses" integer DEFAULT 0 NOT NULL,
	"once_per_account" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "discount_code_uses_within_limit" CHECK ("discount_code"."uses" >= 0 AND ("discount_code"."use_limit" IS NULL OR "discount_code"."uses" <= "discount_code"."use_limit")),
	CONSTRAINT "discount_code_value" CHECK ("discount_code"."value" > 0 AND ("discount_code"."kind" <> 'percent' OR "discount_code"."value" <= 100))
);
--> statement-breakpoint
CREATE TABLE "discount_use" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "discount_use_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"code_id" text NOT NULL,
	"user_id" text NOT NULL,
	"checkout_id" text NOT NULL,
	"status" text NOT NULL,
	"discount_cents" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "discount_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "discount_code" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "discount_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "discount_code" text;--> statement-breakpoint
ALTER TABLE "discount_use" ADD CONSTRAINT "discount_use_code_id_discount_code_id_fk" FOREIGN KEY ("code_id") REFERENCES "public"."discount_code"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discount_use" ADD CONSTRAINT "discount_use_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "discount_code_code_key" ON "discount_code" USING btree (upper("code"));--> statement-breakpoint
CREATE UNIQUE INDEX "discount_use_live_checkout_key" ON "discount_use" USING btree ("checkout_id") WHERE "discount_use"."status" IN ('held', 'used');--> statement-breakpoint
CREATE INDEX "discount_use_code_idx" ON "discount_use" USING btree ("code_id","status");--> statement-breakpoint
CREATE INDEX "discount_use_user_idx" ON "discount_use" USING btree ("user_id","code_id");