ALTER TABLE "product_variant" ADD COLUMN "weight_grams" integer;--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "shipping_tax_cents" bigint;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "paid_cents" bigint;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "tax_cents" bigint;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "shipping_tax_cents" bigint;--> statement-breakpoint
ALTER TABLE "product_variant" ADD CONSTRAINT "product_variant_weight_range" CHECK ("product_variant"."weight_grams" IS NULL OR "product_variant"."weight_grams" BETWEEN 0 AND 100000);