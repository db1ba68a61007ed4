DROP INDEX "product_shop_order_idx";--> statement-breakpoint
DROP INDEX "order_user_created_idx";--> statement-breakpoint
DROP INDEX "order_open_created_idx";--> statement-breakpoint
CREATE INDEX "product_shop_order_idx" ON "product" USING btree ("is_active","sort_order" DESC NULLS FIRST,"name","id");--> statement-breakpoint
CREATE INDEX "order_user_created_idx" ON "order" USING btree ("user_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "order_open_created_idx" ON "order" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "order"."order_fulfilled" = false;