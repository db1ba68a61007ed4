CREATE TABLE "credit_summary" (
	"user_id" text PRIMARY KEY NOT NULL,
	"current_credits" numeric DEFAULT 0 NOT NULL,
	"earned_credits" numeric DEFAULT 0 NOT NULL,
	"stream_earnings_cents" bigint DEFAULT 0 NOT NULL,
	"sales_earnings_cents" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dat_asset" (
	"id" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"creator_username" text NOT NULL,
	"song_name" text NOT NULL,
	"artist_name" text NOT NULL,
	"artwork_url" text NOT NULL,
	"released_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dat_edition" (
	"asset_id" text NOT NULL,
	"edition" integer NOT NULL,
	"owner_id" text,
	"sold" integer DEFAULT 0 NOT NULL,
	"royalties_cents" bigint DEFAULT 0 NOT NULL,
	"earnings_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "dat_edition_asset_id_edition_pk" PRIMARY KEY("asset_id","edition"),
	CONSTRAINT "dat_edition_positive" CHECK ("dat_edition"."edition" >= 1)
);
--> statement-breakpoint
CREATE TABLE "platform_metric" (
	"key" text PRIMARY KEY NOT NULL,
	"value" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reward_token_wallet" (
	"user_id" text PRIMARY KEY NOT NULL,
	"qty" numeric DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_token" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "service_token_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "service_write" (
	"external_id" text PRIMARY KEY NOT NULL,
	"token_id" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_block" (
	"id" text PRIMARY KEY NOT NULL,
	"price_cents" bigint NOT NULL,
	"platform_remaining" bigint NOT NULL,
	"sell_qty" bigint NOT NULL,
	"wallet_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "utility_spend" (
	"user_id" text PRIMARY KEY NOT NULL,
	"total_cents" bigint DEFAULT 0 NOT NULL,
	"awarded" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_entry" (
	"user_id" text NOT NULL,
	"entry_id" text NOT NULL,
	"price_cents" bigint DEFAULT 0 NOT NULL,
	"qty" numeric DEFAULT 0 NOT NULL,
	"rewards" numeric DEFAULT 0 NOT NULL,
	"rebate" numeric DEFAULT 0 NOT NULL,
	"internal_rebate" numeric DEFAULT 0 NOT NULL,
	"internal_rewards" numeric DEFAULT 0 NOT NULL,
	"rewards_tokens" numeric DEFAULT 0 NOT NULL,
	"rebates" numeric DEFAULT 0 NOT NULL,
	CONSTRAINT "wallet_entry_user_id_entry_id_pk" PRIMARY KEY("user_id","entry_id")
);
--> statement-breakpoint
ALTER TABLE "credit_summary" ADD CONSTRAINT "credit_summary_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dat_edition" ADD CONSTRAINT "dat_edition_asset_id_dat_asset_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."dat_asset"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dat_edition" ADD CONSTRAINT "dat_edition_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_token_wallet" ADD CONSTRAINT "reward_token_wallet_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "utility_spend" ADD CONSTRAINT "utility_spend_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_entry" ADD CONSTRAINT "wallet_entry_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dat_asset_released_idx" ON "dat_asset" USING btree ("released_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "dat_edition_owner_idx" ON "dat_edition" USING btree ("owner_id");