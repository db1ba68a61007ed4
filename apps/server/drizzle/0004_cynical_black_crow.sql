CREATE TABLE "storage_object" (
	"bucket" text NOT NULL,
	"path" text NOT NULL,
	"blob_key" text NOT NULL,
	"generation" bigint NOT NULL,
	"size" integer NOT NULL,
	"content_type" text NOT NULL,
	"md5_hash" text NOT NULL,
	"cache_control" text,
	"content_disposition" text,
	"content_encoding" text,
	"content_language" text,
	"custom_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"download_tokens" text[] NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"variant_widths" integer[] NOT NULL,
	"created_by" text,
	"time_created" timestamp with time zone DEFAULT now() NOT NULL,
	"updated" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "storage_object_bucket_path_pk" PRIMARY KEY("bucket","path")
);
--> statement-breakpoint
CREATE TABLE "storage_upload_session" (
	"id" text PRIMARY KEY NOT NULL,
	"bucket" text NOT NULL,
	"path" text NOT NULL,
	"total_size" integer NOT NULL,
	"declared_content_type" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "storage_upload_session_received_range" CHECK ("storage_upload_session"."received" >= 0 AND "storage_upload_session"."received" <= "storage_upload_session"."total_size")
);
--> statement-breakpoint
ALTER TABLE "storage_object" ADD CONSTRAINT "storage_object_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_upload_session" ADD CONSTRAINT "storage_upload_session_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "storage_upload_session_expires_idx" ON "storage_upload_session" USING btree ("expires_at");