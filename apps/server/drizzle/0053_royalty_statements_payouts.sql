CREATE TABLE "local_transfer" (
	"transfer_id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_id" text NOT NULL,
	"transfer_group" text,
	"account_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"asked" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "royalty_payout_run" (
	"id" text PRIMARY KEY NOT NULL,
	"period_kind" text NOT NULL,
	"period_from" date NOT NULL,
	"period_to" date NOT NULL,
	"cutoff_at" timestamp with time zone NOT NULL,
	"minimum_cents" bigint NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "royalty_payout" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"party_id" integer NOT NULL,
	"account_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"transfer_id" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "royalty_payout_positive" CHECK ("royalty_payout"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "royalty_statement_entry" (
	"entry_id" bigint PRIMARY KEY NOT NULL,
	"statement_id" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "royalty_statement" (
	"id" serial PRIMARY KEY NOT NULL,
	"party_id" integer NOT NULL,
	"period_kind" text NOT NULL,
	"period_from" date NOT NULL,
	"period_to" date NOT NULL,
	"time_zone" text NOT NULL,
	"cutoff_at" timestamp with time zone NOT NULL,
	"opening_cents" bigint NOT NULL,
	"closing_cents" bigint NOT NULL,
	"document" jsonb NOT NULL,
	"issued_by" text,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "royalty_party" ADD COLUMN "payout_account_id" text;--> statement-breakpoint
ALTER TABLE "royalty_payout" ADD CONSTRAINT "royalty_payout_run_id_royalty_payout_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."royalty_payout_run"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_payout" ADD CONSTRAINT "royalty_payout_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_statement_entry" ADD CONSTRAINT "royalty_statement_entry_entry_id_royalty_entry_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."royalty_entry"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_statement_entry" ADD CONSTRAINT "royalty_statement_entry_statement_id_royalty_statement_id_fk" FOREIGN KEY ("statement_id") REFERENCES "public"."royalty_statement"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_statement" ADD CONSTRAINT "royalty_statement_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "local_transfer_key_idx" ON "local_transfer" USING btree ("idempotency_key","created_at");--> statement-breakpoint
CREATE INDEX "local_transfer_request_idx" ON "local_transfer" USING btree ("request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_payout_run_period_idx" ON "royalty_payout_run" USING btree ("period_kind","period_from");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_payout_once_idx" ON "royalty_payout" USING btree ("run_id","party_id");--> statement-breakpoint
CREATE INDEX "royalty_payout_status_idx" ON "royalty_payout" USING btree ("run_id","status");--> statement-breakpoint
CREATE INDEX "royalty_statement_entry_statement_idx" ON "royalty_statement_entry" USING btree ("statement_id");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_statement_period_idx" ON "royalty_statement" USING btree ("party_id","period_from");--> statement-breakpoint
CREATE INDEX "royalty_statement_party_idx" ON "royalty_statement" USING btree ("party_id","issued_at");