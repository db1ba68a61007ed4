ALTER TABLE "order_refund" ADD COLUMN "card_round" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_refund" ADD COLUMN "wallet_refunded_at" timestamp with time zone;--> statement-breakpoint
-- Refunds completed before this column: their wallet part, if any, went back when they succeeded (decision 034).
UPDATE "order_refund" SET "wallet_refunded_at" = "completed_at" WHERE "status" = 'succeeded' AND "wallet_cents" > 0 AND "wallet_refunded_at" IS NULL;
