CREATE TABLE "oauth_client" (
	"client_id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"redirect_uris" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "oauth_client_has_redirect" CHECK (cardinality("oauth_client"."redirect_uris") >= 1)
);
--> statement-breakpoint
CREATE TABLE "oidc_model" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "oidc_model_model_id_pk" PRIMARY KEY("model","id")
);
--> statement-breakpoint
CREATE TABLE "oidc_signing_key" (
	"kid" text PRIMARY KEY NOT NULL,
	"private_jwk_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "oidc_model_grant_idx" ON "oidc_model" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oidc_model_uid_idx" ON "oidc_model" USING btree ("model","uid");--> statement-breakpoint
CREATE INDEX "oidc_model_expires_idx" ON "oidc_model" USING btree ("expires_at");