ALTER TABLE "product" ADD COLUMN "name_your_price" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "order_item" ADD COLUMN "digital" boolean DEFAULT false NOT NULL;