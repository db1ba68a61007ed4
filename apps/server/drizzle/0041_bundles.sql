CREATE TABLE "bundle_component" (
	"bundle_variant_id" text NOT NULL,
	"position" integer NOT NULL,
	"component_variant_id" text NOT NULL,
	"qty" integer NOT NULL,
	CONSTRAINT "bundle_component_bundle_variant_id_position_pk" PRIMARY KEY("bundle_variant_id","position"),
	CONSTRAINT "bundle_component_qty_positive" CHECK ("bundle_component"."qty" > 0)
);
--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "bundle" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "components" jsonb;--> statement-breakpoint
ALTER TABLE "bundle_component" ADD CONSTRAINT "bundle_component_bundle_variant_id_product_variant_id_fk" FOREIGN KEY ("bundle_variant_id") REFERENCES "public"."product_variant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_component" ADD CONSTRAINT "bundle_component_component_variant_id_product_variant_id_fk" FOREIGN KEY ("component_variant_id") REFERENCES "public"."product_variant"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bundle_component_component_idx" ON "bundle_component" USING btree ("component_variant_id");