ALTER TABLE "oidc_model" ADD COLUMN "account_id" text;--> statement-breakpoint
CREATE INDEX "oidc_model_account_idx" ON "oidc_model" USING btree ("account_id");--> statement-breakpoint
-- Rows stored before this column existed: the library keeps the owner in its payload.
UPDATE "oidc_model" SET "account_id" = "payload"->>'accountId' WHERE "account_id" IS NULL AND "payload" ? 'accountId';--> statement-breakpoint
-- Reset links stored in the clear before reset tokens were hashed stop working.
DELETE FROM "verification" WHERE "identifier" LIKE 'reset-password:%';
