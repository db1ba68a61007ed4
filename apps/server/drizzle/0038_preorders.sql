CREATE TABLE "order_shipment" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"carrier" text,
	"tracking_number" text,
	"actor_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "preorder_notice" (
	"user_id" text NOT NULL,
	"item_id" text NOT NULL,
	"kind" text NOT NULL,
	"ships_on" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "preorder_notice_user_id_item_id_kind_ships_on_pk" PRIMARY KEY("user_id","item_id","kind","ships_on")
);
--> statement-breakpoint
ALTER TABLE "product_variant" ADD COLUMN "release_date" date;--> statement-breakpoint
ALTER TABLE "product" ADD COLUMN "release_date" date;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "ships_on" date;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "shipment_id" text;--> statement-breakpoint
ALTER TABLE "order_shipment" ADD CONSTRAINT "order_shipment_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preorder_notice" ADD CONSTRAINT "preorder_notice_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_shipment_order_idx" ON "order_shipment" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "order_item_preorder_idx" ON "order_item" USING btree ("ships_on") WHERE "order_item"."ships_on" IS NOT NULL AND "order_item"."released_at" IS NULL;