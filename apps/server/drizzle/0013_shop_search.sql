-- The shop search index uses trigrams (a trusted extension: a database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "category" text DEFAULT 'merch' NOT NULL;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(name || ' ' || description)) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "product_category_order_idx" ON "product" USING btree ("is_active","category","sort_order" DESC NULLS FIRST,"name","id");--> statement-breakpoint
CREATE INDEX "product_search_trgm_idx" ON "product" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
ALTER TABLE "product" ADD CONSTRAINT "product_category_known" CHECK ("product"."category" IN ('merch', 'music', 'bundles'));