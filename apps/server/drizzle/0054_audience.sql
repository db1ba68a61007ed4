CREATE TABLE "audience_settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"cart_reminder_hours" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkout_reminder" (
	"checkout_id" text PRIMARY KEY NOT NULL,
	"sent" boolean NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "marketing_consent" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "marketing_consent" ADD COLUMN "country" text;--> statement-breakpoint
ALTER TABLE "checkout_reminder" ADD CONSTRAINT "checkout_reminder_checkout_id_checkout_id_fk" FOREIGN KEY ("checkout_id") REFERENCES "public"."checkout"("id") ON DELETE cascade ON UPDATE no action;