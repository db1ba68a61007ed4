CREATE TABLE "sign_in_guard" (
	"email" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"unlock_token_hash" text,
	"unlock_expires_at" timestamp with time zone,
	CONSTRAINT "sign_in_guard_unlock_token_hash_unique" UNIQUE("unlock_token_hash")
);
