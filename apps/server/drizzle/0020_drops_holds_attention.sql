CREATE TABLE "needs_attention" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "needs_attention_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"detail" text NOT NULL,
	"healed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "product_variant" ADD COLUMN "sold" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "product_variant" ADD COLUMN "per_customer_limit" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "needs_attention_kind_subject_key" ON "needs_attention" USING btree ("kind","subject");--> statement-breakpoint
CREATE INDEX "needs_attention_open_idx" ON "needs_attention" USING btree ("created_at") WHERE "needs_attention"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX "checkout_user_pending_idx" ON "checkout" USING btree ("user_id") WHERE "checkout"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "order_item_variant_idx" ON "order_item" USING btree ("variant_id");--> statement-breakpoint
ALTER TABLE "product_variant" ADD CONSTRAINT "product_variant_sold_not_negative" CHECK ("product_variant"."sold" >= 0);--> statement-breakpoint
ALTER TABLE "product_variant" ADD CONSTRAINT "product_variant_limit_positive" CHECK ("product_variant"."per_customer_limit" IS NULL OR "product_variant"."per_customer_limit" > 0);