ALTER TABLE "product" ADD COLUMN "release_id" integer;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "listed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- Issue 39 item 6: the products that sell a release as files point at its page; a release with an album for sale is one card (the album's).
UPDATE "product" SET "release_id" = rp."release_id", "listed" = (rp."track_id" IS NULL OR NOT EXISTS (
  SELECT 1 FROM "release_product" album WHERE album."release_id" = rp."release_id" AND album."kind" = 'sale' AND album."track_id" IS NULL
)) FROM "release_product" rp WHERE rp."product_id" = "product"."id" AND rp."kind" = 'sale';
