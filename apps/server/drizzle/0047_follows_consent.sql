CREATE TABLE "fan_follow" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fan_follow_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" text NOT NULL,
	"artist_id" integer,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "marketing_consent" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "marketing_consent_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"email" text NOT NULL,
	"user_id" text,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"page" text DEFAULT '' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"given_at" timestamp with time zone,
	"withdrawn_at" timestamp with time zone,
	"withdrawn_by" text
);
--> statement-breakpoint
ALTER TABLE "checkout" ADD COLUMN "follow_artists" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "fan_follow" ADD CONSTRAINT "fan_follow_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fan_follow" ADD CONSTRAINT "fan_follow_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "marketing_consent" ADD CONSTRAINT "marketing_consent_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fan_follow_target_idx" ON "fan_follow" USING btree ("user_id",coalesce("artist_id", 0));--> statement-breakpoint
CREATE INDEX "fan_follow_artist_idx" ON "fan_follow" USING btree ("artist_id");--> statement-breakpoint
CREATE UNIQUE INDEX "marketing_consent_email_idx" ON "marketing_consent" USING btree ("email");--> statement-breakpoint
CREATE INDEX "marketing_consent_user_idx" ON "marketing_consent" USING btree ("user_id");