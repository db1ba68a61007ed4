CREATE TABLE "royalty_invitation" (
	"id" text PRIMARY KEY NOT NULL,
	"party_id" integer NOT NULL,
	"email" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" text,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "royalty_party_member" (
	"party_id" integer NOT NULL,
	"user_id" text NOT NULL,
	"invitation_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "royalty_party_member_party_id_user_id_pk" PRIMARY KEY("party_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "royalty_invitation" ADD CONSTRAINT "royalty_invitation_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_invitation" ADD CONSTRAINT "royalty_invitation_accepted_by_user_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_party_member" ADD CONSTRAINT "royalty_party_member_party_id_royalty_party_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."royalty_party"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_party_member" ADD CONSTRAINT "royalty_party_member_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "royalty_party_member" ADD CONSTRAINT "royalty_party_member_invitation_id_royalty_invitation_id_fk" FOREIGN KEY ("invitation_id") REFERENCES "public"."royalty_invitation"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "royalty_invitation_party_idx" ON "royalty_invitation" USING btree ("party_id","created_at");--> statement-breakpoint
CREATE INDEX "royalty_party_member_user_idx" ON "royalty_party_member" USING btree ("user_id");