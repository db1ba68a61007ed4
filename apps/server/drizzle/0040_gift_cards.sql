CREATE TABLE "gift_card" (
	"id" text PRIMARY KEY NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"checkout_id" text NOT NULL,
	"order_id" text,
	"buyer_id" text NOT NULL,
	"product_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"recipient_email" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"code_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"mailed_at" timestamp with time zone,
	"redeemed_by" text,
	"redeemed_at" timestamp with time zone,
	"voided_at" timestamp with time zone,
	CONSTRAINT "gift_card_amount_positive" CHECK ("gift_card"."amount_cents" > 0),
	CONSTRAINT "gift_card_redeemed_has_redeemer" CHECK ("gift_card"."status" <> 'redeemed' OR "gift_card"."redeemed_at" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "gift_card" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "gift_card" ADD CONSTRAINT "gift_card_buyer_id_user_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gift_card" ADD CONSTRAINT "gift_card_redeemed_by_user_id_fk" FOREIGN KEY ("redeemed_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gift_card_code_hash_key" ON "gift_card" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "gift_card_checkout_idx" ON "gift_card" USING btree ("checkout_id");--> statement-breakpoint
CREATE INDEX "gift_card_order_idx" ON "gift_card" USING btree ("order_id");