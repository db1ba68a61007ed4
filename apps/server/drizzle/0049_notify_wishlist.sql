CREATE TABLE "wishlist_item" (
	"user_id" text NOT NULL,
	"product_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_available" boolean DEFAULT true NOT NULL,
	"told_at" timestamp with time zone,
	CONSTRAINT "wishlist_item_user_id_product_id_pk" PRIMARY KEY("user_id","product_id")
);
--> statement-breakpoint
ALTER TABLE "variant_waitlist" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "variant_waitlist" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "wishlist_item" ADD CONSTRAINT "wishlist_item_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wishlist_item" ADD CONSTRAINT "wishlist_item_product_id_product_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."product"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "wishlist_item_product_idx" ON "wishlist_item" USING btree ("product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "variant_waitlist_email_key" ON "variant_waitlist" USING btree ("variant_id","email");--> statement-breakpoint
ALTER TABLE "variant_waitlist" ADD CONSTRAINT "variant_waitlist_who" CHECK (("variant_waitlist"."user_id" IS NULL) <> ("variant_waitlist"."email" IS NULL));