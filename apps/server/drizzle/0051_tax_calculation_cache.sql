CREATE TABLE "tax_calculation" (
	"key" text PRIMARY KEY NOT NULL,
	"result" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
