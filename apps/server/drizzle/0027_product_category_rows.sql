-- The categories the shop had as a fixed list (merch, music, bundles), now rows the console manages (decision 046).
INSERT INTO "product_category" ("id", "name", "position") VALUES ('merch', 'Merch', 1), ('music', 'Music', 2), ('bundles', 'Bundles', 3)
ON CONFLICT ("id") DO NOTHING;
