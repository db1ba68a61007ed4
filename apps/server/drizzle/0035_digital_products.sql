CREATE TABLE "release_product" (
	"product_id" text PRIMARY KEY NOT NULL,
	"release_id" integer NOT NULL,
	"track_id" integer,
	"kind" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "digital" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "release_product" ADD CONSTRAINT "release_product_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "release_product_release_idx" ON "release_product" USING btree ("release_id");