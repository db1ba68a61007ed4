-- Lines ordered before order_item.digital existed (migration 0039) were all written false.
-- A line was digital when its product is a digital catalogue product (a release or a track
-- sold as files; product.digital never changes back). Orders since 0039 already carry it,
-- so this touches only older lines. Session 10, decision 061 amended.
UPDATE "order_item" AS "line"
SET "digital" = true
FROM "product"
WHERE "product"."id" = "line"."product_id"
  AND "product"."digital" = true
  AND "line"."digital" = false;
