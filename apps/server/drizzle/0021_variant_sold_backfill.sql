-- Units already sold before the column existed (decision 044): the order lines of each variant.
UPDATE "product_variant" v SET "sold" = s.units
FROM (SELECT "variant_id", sum("qty")::int AS units FROM "order_item" WHERE "variant_id" IS NOT NULL GROUP BY "variant_id") s
WHERE s."variant_id" = v."id";
