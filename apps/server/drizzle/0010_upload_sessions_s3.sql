CREATE TABLE "storage_upload_pending" (
	"session_id" text PRIMARY KEY NOT NULL,
	"bytes" "bytea" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "storage_upload_session" ADD COLUMN "multipart_upload_id" text;--> statement-breakpoint
ALTER TABLE "storage_upload_session" ADD COLUMN "parts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "storage_upload_session" ADD COLUMN "reclaimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "storage_upload_pending" ADD CONSTRAINT "storage_upload_pending_session_id_storage_upload_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."storage_upload_session"("id") ON DELETE cascade ON UPDATE no action;