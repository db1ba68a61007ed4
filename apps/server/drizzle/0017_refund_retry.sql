CREATE TABLE "local_refund" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"refund_id" text NOT NULL,
	"payment_intent_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_refund_refund_id_unique" UNIQUE("refund_id")
);
--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "gave_up_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "lease_until" timestamp with time zone;