CREATE TABLE "drop_entry" (
	"drop_id" text NOT NULL,
	"number" integer NOT NULL,
	"user_id" text NOT NULL,
	"position" integer,
	"status" text DEFAULT 'waiting' NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"admitted_at" timestamp with time zone,
	"batch" integer,
	"expires_at" timestamp with time zone,
	"token" text,
	"ended_at" timestamp with time zone,
	"checkout_id" text,
	"order_id" text,
	"units_bought" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "drop_entry_drop_id_number_pk" PRIMARY KEY("drop_id","number")
);
--> statement-breakpoint
CREATE TABLE "drop_item" (
	"drop_id" text NOT NULL,
	"variant_id" text NOT NULL,
	CONSTRAINT "drop_item_drop_id_variant_id_pk" PRIMARY KEY("drop_id","variant_id")
);
--> statement-breakpoint
CREATE TABLE "drop_used_challenge" (
	"signature" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "drop" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"queue_opens_at" timestamp with time zone NOT NULL,
	"per_customer_limit" integer NOT NULL,
	"admissions_per_minute" integer NOT NULL,
	"max_admitted" integer NOT NULL,
	"checkout_window_seconds" integer NOT NULL,
	"challenge" boolean DEFAULT true NOT NULL,
	"seed" text NOT NULL,
	"seed_hash" text NOT NULL,
	"entry_list_hash" text,
	"seed_revealed_at" timestamp with time zone,
	"entry_count" integer DEFAULT 0 NOT NULL,
	"pre_queue_count" integer,
	"now_serving" integer DEFAULT 0 NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"challenge_failures" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"sold_out_at" timestamp with time zone,
	"note" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drop_limits_positive" CHECK ("drop"."per_customer_limit" > 0 AND "drop"."admissions_per_minute" > 0 AND "drop"."max_admitted" > 0 AND "drop"."checkout_window_seconds" > 0),
	CONSTRAINT "drop_queue_before_start" CHECK ("drop"."queue_opens_at" < "drop"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "variant_waitlist" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"variant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"offered_at" timestamp with time zone,
	"offer_expires_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "drop_entry" ADD CONSTRAINT "drop_entry_drop_id_drop_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drop"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_entry" ADD CONSTRAINT "drop_entry_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_item" ADD CONSTRAINT "drop_item_drop_id_drop_id_fk" FOREIGN KEY ("drop_id") REFERENCES "public"."drop"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop_item" ADD CONSTRAINT "drop_item_variant_id_product_variant_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drop" ADD CONSTRAINT "drop_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variant_waitlist" ADD CONSTRAINT "variant_waitlist_variant_id_product_variant_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variant_waitlist" ADD CONSTRAINT "variant_waitlist_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "drop_entry_user_key" ON "drop_entry" USING btree ("drop_id","user_id");--> statement-breakpoint
CREATE INDEX "drop_entry_queue_idx" ON "drop_entry" USING btree ("drop_id","status","position");--> statement-breakpoint
CREATE INDEX "drop_item_variant_idx" ON "drop_item" USING btree ("variant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "drop_slug_key" ON "drop" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "drop_status_idx" ON "drop" USING btree ("status","starts_at");--> statement-breakpoint
CREATE UNIQUE INDEX "variant_waitlist_user_key" ON "variant_waitlist" USING btree ("variant_id","user_id");--> statement-breakpoint
CREATE INDEX "variant_waitlist_queue_idx" ON "variant_waitlist" USING btree ("variant_id","status","seq");