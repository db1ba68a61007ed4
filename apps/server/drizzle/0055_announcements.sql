CREATE TABLE "announcement_automation" (
	"kind" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announcement_recipient" (
	"announcement_id" bigint NOT NULL,
	"email" text NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "announcement_recipient_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text DEFAULT '' NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"claimed_by" text,
	"claimed_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"detail" text DEFAULT '' NOT NULL,
	CONSTRAINT "announcement_recipient_announcement_id_email_pk" PRIMARY KEY("announcement_id","email"),
	CONSTRAINT "announcement_recipient_claimed" CHECK ("announcement_recipient"."state" <> 'sending' OR "announcement_recipient"."claimed_by" IS NOT NULL)
);
--> statement-breakpoint
CREATE TABLE "announcement" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "announcement_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"image" text DEFAULT '' NOT NULL,
	"link_kind" text,
	"link_id" text,
	"link_title" text DEFAULT '' NOT NULL,
	"link_path" text DEFAULT '' NOT NULL,
	"to_label" boolean DEFAULT true NOT NULL,
	"artist_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"automatic_key" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "announcement_recipient" ADD CONSTRAINT "announcement_recipient_announcement_id_announcement_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcement"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement" ADD CONSTRAINT "announcement_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "announcement_recipient_state_idx" ON "announcement_recipient" USING btree ("announcement_id","state","seq");--> statement-breakpoint
CREATE INDEX "announcement_recipient_sending_idx" ON "announcement_recipient" USING btree ("claimed_by") WHERE "announcement_recipient"."state" = 'sending';--> statement-breakpoint
CREATE INDEX "announcement_status_idx" ON "announcement" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "announcement_automatic_key_idx" ON "announcement" USING btree ("automatic_key");