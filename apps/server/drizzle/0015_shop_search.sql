-- The shop search index uses trigrams (a trusted extension: a database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "category" text DEFAULT 'merch' NOT NULL;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(name || ' ' || description)) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "product_category_order_idx" ON "product" USING btree ("is_active","category","sort_order" DESC NULLS FIRST,"name","id");--> statement-breakpoint
CREATE INDEX "product_search_trgm_idx" ON "product" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
ALTER TABLE "product" ADD CONSTRAINT "product_category_known" CHECK ("product"."category" IN ('merch', 'music', 'bundles'));--> statement-breakpoint
CREATE TABLE "saved_address" (
	"user_id" text NOT NULL,
	"id" text NOT NULL,
	"address" jsonb NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "saved_address_user_id_id_pk" PRIMARY KEY("user_id","id")
);
--> statement-breakpoint
ALTER TABLE "saved_address" ADD CONSTRAINT "saved_address_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saved_address_user_used_idx" ON "saved_address" USING btree ("user_id","last_used_at");