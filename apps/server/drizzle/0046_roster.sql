CREATE TABLE "artist_slug" (
	"slug" text PRIMARY KEY NOT NULL,
	"artist_id" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "artist" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"bio" text DEFAULT '' NOT NULL,
	"image" text DEFAULT '' NOT NULL,
	"links" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "artist_slug_form" CHECK ("artist"."slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$')
);
--> statement-breakpoint
CREATE TABLE "product_artist" (
	"product_id" text NOT NULL,
	"artist_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_artist_product_id_artist_id_pk" PRIMARY KEY("product_id","artist_id")
);
--> statement-breakpoint
CREATE TABLE "release_artist" (
	"release_id" integer NOT NULL,
	"artist_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "release_artist_release_id_artist_id_pk" PRIMARY KEY("release_id","artist_id")
);
--> statement-breakpoint
CREATE TABLE "track_artist" (
	"track_id" integer NOT NULL,
	"artist_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "track_artist_track_id_artist_id_pk" PRIMARY KEY("track_id","artist_id")
);
--> statement-breakpoint
ALTER TABLE "artist_slug" ADD CONSTRAINT "artist_slug_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_artist" ADD CONSTRAINT "product_artist_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_artist" ADD CONSTRAINT "product_artist_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_artist" ADD CONSTRAINT "release_artist_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_artist" ADD CONSTRAINT "release_artist_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "track_artist" ADD CONSTRAINT "track_artist_track_id_release_track_id_fk" FOREIGN KEY ("track_id") REFERENCES "public"."release_track"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "track_artist" ADD CONSTRAINT "track_artist_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "artist_slug_artist_idx" ON "artist_slug" USING btree ("artist_id");--> statement-breakpoint
CREATE UNIQUE INDEX "artist_slug_idx" ON "artist" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "product_artist_artist_idx" ON "product_artist" USING btree ("artist_id");--> statement-breakpoint
CREATE INDEX "release_artist_artist_idx" ON "release_artist" USING btree ("artist_id");--> statement-breakpoint
CREATE INDEX "track_artist_artist_idx" ON "track_artist" USING btree ("artist_id");--> statement-breakpoint
-- Backfill (decision 070): each release's artist credit becomes a roster artist, one per distinct
-- name (any case, spaces squeezed), with an address made from the name (accents dropped, -2, -3
-- when two names make the same one). A credit that names several acts ("A feat. B", "A & B",
-- "A x B", "A, B", "A/B"), or leaves no address, is not guessed at: its release stays unlinked
-- and the console's Roster tab and `npm run cli -- roster-unlinked` list it.
WITH credit AS (
	SELECT btrim(regexp_replace("artist", '\s+', ' ', 'g')) AS "name" FROM "release"
), matchable AS (
	SELECT "name", lower("name") AS "key",
		btrim(left(btrim(regexp_replace(lower(translate("name", 'ÀÁÂÃÄÅàáâãäåÈÉÊËèéêëÌÍÎÏìíîïÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÑñÇçÝýÿ', 'AAAAAAaaaaaaEEEEeeeeIIIIiiiiOOOOOOooooooUUUUuuuuNnCcYyy')), '[^a-z0-9]+', '-', 'g'), '-'), 60), '-') AS "base"
	FROM credit
	WHERE "name" <> '' AND "name" !~* '\s(feat\.?|ft\.?|featuring|&|x|vs\.?|with|and)\s|,|/'
), named AS (
	SELECT "key", min("name") AS "name", min("base") AS "base" FROM matchable WHERE "base" <> '' GROUP BY "key"
), numbered AS (
	SELECT "name", "base", row_number() OVER (PARTITION BY "base" ORDER BY "name", "key") AS "n" FROM named
)
INSERT INTO "artist" ("name", "slug")
SELECT "name", CASE WHEN "n" = 1 THEN "base" ELSE btrim(left("base", 54), '-') || '-' || "n" END FROM numbered ORDER BY "name"
ON CONFLICT ("slug") DO NOTHING;
--> statement-breakpoint
INSERT INTO "release_artist" ("release_id", "artist_id", "position")
SELECT r."id", a."id", 0 FROM "release" r JOIN "artist" a ON lower(a."name") = lower(btrim(regexp_replace(r."artist", '\s+', ' ', 'g')));
--> statement-breakpoint
-- The products that sell or carry a release name its artists too (the shop's artist filter finds them).
INSERT INTO "product_artist" ("product_id", "artist_id", "position")
SELECT DISTINCT rp."product_id", ra."artist_id", 0 FROM "release_product" rp JOIN "release_artist" ra ON ra."release_id" = rp."release_id"
ON CONFLICT DO NOTHING;
