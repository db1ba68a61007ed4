CREATE TABLE "digital_ownership" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"release_id" integer NOT NULL,
	"track_id" integer,
	"source" text NOT NULL,
	"source_ref" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "digital_ownership_once" UNIQUE NULLS NOT DISTINCT("user_id","release_id","track_id","source","source_ref")
);
--> statement-breakpoint
CREATE TABLE "download_code" (
	"code" text PRIMARY KEY NOT NULL,
	"release_id" integer NOT NULL,
	"batch" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"redeemed_by" text,
	"redeemed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "release_track" (
	"id" serial PRIMARY KEY NOT NULL,
	"release_id" integer NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"isrc" text,
	"lyrics" text DEFAULT '' NOT NULL,
	"price_cents" bigint,
	"master_path" text,
	"master_generation" bigint,
	"duration_seconds" integer,
	"encode_status" text DEFAULT 'none' NOT NULL,
	"encode_done" integer DEFAULT 0 NOT NULL,
	"encode_attempts" integer DEFAULT 0 NOT NULL,
	"encode_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "release_track_price_not_negative" CHECK ("release_track"."price_cents" IS NULL OR "release_track"."price_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "release" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"artist" text NOT NULL,
	"release_date" date NOT NULL,
	"artwork" text DEFAULT '' NOT NULL,
	"credits" text DEFAULT '' NOT NULL,
	"upc" text,
	"price_cents" bigint NOT NULL,
	"name_your_price" boolean DEFAULT false NOT NULL,
	"preview_seconds" integer DEFAULT 30,
	"published" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "release_price_not_negative" CHECK ("release"."price_cents" >= 0),
	CONSTRAINT "release_preview_range" CHECK ("release"."preview_seconds" IS NULL OR "release"."preview_seconds" BETWEEN 5 AND 120)
);
--> statement-breakpoint
CREATE TABLE "track_file" (
	"track_id" integer NOT NULL,
	"format" text NOT NULL,
	"master_generation" bigint NOT NULL,
	"key" text NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "track_file_track_id_format_pk" PRIMARY KEY("track_id","format")
);
--> statement-breakpoint
ALTER TABLE "digital_ownership" ADD CONSTRAINT "digital_ownership_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digital_ownership" ADD CONSTRAINT "digital_ownership_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digital_ownership" ADD CONSTRAINT "digital_ownership_track_id_release_track_id_fk" FOREIGN KEY ("track_id") REFERENCES "public"."release_track"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "download_code" ADD CONSTRAINT "download_code_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "download_code" ADD CONSTRAINT "download_code_redeemed_by_user_id_fk" FOREIGN KEY ("redeemed_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_track" ADD CONSTRAINT "release_track_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "track_file" ADD CONSTRAINT "track_file_track_id_release_track_id_fk" FOREIGN KEY ("track_id") REFERENCES "public"."release_track"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "digital_ownership_user_idx" ON "digital_ownership" USING btree ("user_id","release_id");--> statement-breakpoint
CREATE INDEX "download_code_release_idx" ON "download_code" USING btree ("release_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "release_track_position_idx" ON "release_track" USING btree ("release_id","position");