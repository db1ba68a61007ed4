CREATE TABLE "royalty_cost" (
	"id" serial PRIMARY KEY NOT NULL,
	"release_id" integer NOT NULL,
	"party_id" integer NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "royalty_cost_positive" CHECK ("royalty_cost"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "royalty_entry" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "royalty_entry_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"party_id" integer NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"order_id" text NOT NULL,
	"position" integer NOT NULL,
	"part" integer NOT NULL,
	"release_id" integer,
	"product_id" text NOT NULL,
	"rule_id" integer,
	"amount_cents" bigint NOT NULL,
	"earned_at" timestamp with time zone NOT NULL,
	"available_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "royalty_party" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"artist_id" integer,
	"house" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "royalty_rule_share" (
	"rule_id" integer NOT NULL,
	"party_id" integer NOT NULL,
	"position" integer NOT NULL,
	"share_bp" integer NOT NULL,
	CONSTRAINT "royalty_rule_share_rule_id_party_id_pk" PRIMARY KEY("rule_id","party_id"),
	CONSTRAINT "royalty_rule_share_bp" CHECK ("royalty_rule_share"."share_bp" BETWEEN 1 AND 10000)
);
--> statement-breakpoint
CREATE TABLE "royalty_rule" (
	"id" serial PRIMARY KEY NOT NULL,
	"subject_kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"effective_from" timestamp with time zone NOT NULL,
	"reserve_bp" integer DEFAULT 0 NOT NULL,
	"reserve_days" integer DEFAULT 0 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "royalty_rule_reserve" CHECK ("royalty_rule"."reserve_bp" BETWEEN 0 AND 10000 AND "royalty_rule"."reserve_days" BETWEEN 0 AND 3650)
);
--> statement-breakpoint
CREATE TABLE "royalty_slice" (
	"order_id" text NOT NULL,
	"position" integer NOT NULL,
	"part" integer NOT NULL,
	"product_id" text NOT NULL,
	"release_id" integer,
	"rule_id" integer,
	"net_cents" bigint NOT NULL,
	"sold_at" timestamp with time zone NOT NULL,
	CONSTRAINT "royalty_slice_order_id_position_part_pk" PRIMARY KEY("order_id","position","part")
);
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "dispute_status" text;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "dispute_amount_cents" bigint;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "dispute_closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "royalty_cost" ADD CONSTRAINT "royalty_cost_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_cost" ADD CONSTRAINT "royalty_cost_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_entry" ADD CONSTRAINT "royalty_entry_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_party" ADD CONSTRAINT "royalty_party_artist_id_artist_id_fk" FOREIGN KEY ("artist_id") REFERENCES "public"."artist"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_rule_share" ADD CONSTRAINT "royalty_rule_share_rule_id_royalty_rule_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."royalty_rule"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_rule_share" ADD CONSTRAINT "royalty_rule_share_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_slice" ADD CONSTRAINT "royalty_slice_rule_id_royalty_rule_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."royalty_rule"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "royalty_cost_release_idx" ON "royalty_cost" USING btree ("release_id","party_id");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_entry_once_idx" ON "royalty_entry" USING btree ("source","order_id","position","part","party_id","kind");--> statement-breakpoint
CREATE INDEX "royalty_entry_party_idx" ON "royalty_entry" USING btree ("party_id","earned_at");--> statement-breakpoint
CREATE INDEX "royalty_entry_order_idx" ON "royalty_entry" USING btree ("order_id","position","part");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_party_artist_idx" ON "royalty_party" USING btree ("artist_id");--> statement-breakpoint
CREATE UNIQUE INDEX "royalty_party_house_idx" ON "royalty_party" USING btree ("house") WHERE "royalty_party"."house";--> statement-breakpoint
CREATE INDEX "royalty_rule_subject_idx" ON "royalty_rule" USING btree ("subject_kind","subject_id","effective_from");--> statement-breakpoint
-- The shop's own label (decision 075): takes what no rule gives away.
INSERT INTO "royalty_party" ("kind", "name", "house") VALUES ('label', 'The label', true);
