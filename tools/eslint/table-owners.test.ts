import { RuleTester } from 'eslint';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import tableOwners, { readOwners, TABLE_OWNERS } from './table-owners.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });
const root = new URL('../..', import.meta.url).pathname;
const at = (file: string) => `${root}${file}`;

tester.run('storefront/areas-own-their-tables', tableOwners.rules['areas-own-their-tables'], {
  valid: [
    { filename: at('apps/server/src/orders/orders.service.ts'), code: "import { orders, orderItems } from '../db/schema/index.ts';" },
    // A listed exception (read only, with its reason in table-owners.js).
    { filename: at('apps/server/src/orders/desk.service.ts'), code: "import { users } from '../db/schema/index.ts';" },
    // Types and helpers of the schema are not tables.
    { filename: at('apps/server/src/checkout/checkouts.service.ts'), code: "import { checkouts, CHECKOUT_STATUSES } from '../db/schema/index.ts';" },
    { filename: at('apps/server/src/orders/orders.test.ts'), code: "import { wallets } from '../db/schema/index.ts';" },
    { filename: at('apps/server/src/db/backup.ts'), code: "import { wallets } from './schema/index.ts';" },
    // SQL text naming the area's own tables, quoted or not.
    { filename: at('apps/server/src/orders/orders.service.ts'), code: 'db.execute(sql`SELECT i.qty FROM order_item i JOIN "order" o ON o.id = i.order_id WHERE o.id = ${id}`);' },
    { filename: at('apps/server/src/wallet/wallet.service.ts'), code: "pool.query('UPDATE wallet SET held_cents = 0; DELETE FROM ledger_entry WHERE false');" },
    // A listed exception named in SQL text (by its drizzle name in EXCEPTIONS).
    { filename: at('apps/server/src/orders/refunds.service.ts'), code: 'tx.execute(sql`SELECT sum(held_delta_cents) FROM ledger_entry WHERE user_id = ${id}`);' },
    // Prose is not query text; tables of no area (pg-boss's, the catalogues of Postgres) belong to no one.
    { filename: at('apps/server/src/checkout/checkouts.service.ts'), code: "const message = 'Taken from wallet into order, then update product';" },
    { filename: at('apps/server/src/metrics/metrics.service.ts'), code: "pool.query('SELECT count(*) FROM pgboss.job'); pool.query('SELECT 1 FROM pg_database');" },
  ],
  invalid: [
    { filename: at('apps/server/src/checkout/checkouts.service.ts'), code: "import { ledgerEntries } from '../db/schema/index.ts';", errors: 1 },
    { filename: at('apps/server/src/payments/provider-events.service.ts'), code: "import { checkouts, orders } from '../db/schema/index.ts';", errors: 2 },
    { filename: at('apps/server/src/wallet/wallet.service.ts'), code: "import { productVariants } from '../db/schema/index.ts';", errors: 1 },
    // A table moved into its area's file is owned by that area: mail's, payments', orders' (once money.ts, order-desk.ts).
    { filename: at('apps/server/src/accounts/auth.ts'), code: "import { devMailbox, localRefunds, orderEvents } from '../db/schema/index.ts';", errors: 3 },
    // Another area's table in a `sql` template, with the owner read from its schema file.
    {
      filename: at('apps/server/src/checkout/checkouts.service.ts'),
      code: 'db.execute(sql`SELECT coalesce(sum(available_delta_cents), 0) FROM ledger_entry WHERE user_id = ${userId}`);',
      errors: [{ messageId: 'ownerSql', data: { table: 'ledger_entry', owner: 'wallet' } }],
    },
    // Raw query strings: quoted, joined, lower case in a query call, written, deleted from.
    { filename: at('apps/server/src/wallet/wallet.service.ts'), code: `client.query('SELECT 1 FROM "order" o JOIN order_item i ON i.order_id = o.id');`, errors: 2 },
    { filename: at('apps/server/src/fans/fans.service.ts'), code: "pool.query('select count(*) from product_variant');", errors: 1 },
    {
      filename: at('apps/server/src/drops/drops.service.ts'),
      code: 'tx.execute(sql.raw(\'INSERT INTO gift_card (id) VALUES (1)\')); pool.query(`DELETE FROM public."checkout" WHERE id = $1`);',
      errors: 2,
    },
    // Query text kept in a variable first (capitals), and an exception listed for another table only.
    { filename: at('apps/server/src/orders/desk.service.ts'), code: 'const text = `UPDATE wallet SET balance_cents = 0 WHERE user_id = $1`;', errors: 1 },
  ],
});

tester.run('storefront/payments-imports-no-flow', tableOwners.rules['payments-imports-no-flow'], {
  valid: [
    { filename: at('apps/server/src/payments/payments.routes.ts'), code: "import { errorBody } from '../http/error-handler.ts';" },
    { filename: at('apps/server/src/checkout/local-pay.routes.ts'), code: "import { applyPaymentEvent } from './payment.flow.ts';" },
  ],
  invalid: [
    { filename: at('apps/server/src/payments/payments.routes.ts'), code: "import { applyPaymentEvent } from '../checkout/payment.flow.ts';", errors: 1 },
    { filename: at('apps/server/src/payments/payments.routes.ts'), code: "import { applyRefundEvent } from '../orders/refunds.service.ts';", errors: 1 },
  ],
});

describe('table owners', () => {
  it("derives each table's area from the schema file it is declared in", () => {
    expect(TABLE_OWNERS.mail).toEqual(['mailSuppressions', 'devMailbox']);
    expect(TABLE_OWNERS.orders).toEqual(expect.arrayContaining(['orders', 'orderItems', 'orderRefunds', 'orderEvents']));
    expect(TABLE_OWNERS.wallet).toEqual(expect.arrayContaining(['wallets', 'ledgerEntries', 'datAssets']));
    expect(TABLE_OWNERS.payouts).toContain('datEarnings');
    const all = Object.values(TABLE_OWNERS).flat();
    expect(new Set(all).size).toBe(all.length);
    // Every schema file but index.ts names an area that exists.
    for (const area of Object.keys(TABLE_OWNERS)) expect(fs.existsSync(path.join(root, 'apps/server/src', area))).toBe(true);
  });

  it('refuses a schema file that names no area, or a table it cannot read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-'));
    try {
      fs.writeFileSync(path.join(dir, 'orders.ts'), "export const orders = pgTable(\n  'order',\n  {},\n);\n");
      expect(readOwners(dir)).toEqual([{ drizzle: 'orders', sql: 'order', area: 'orders' }]);
      fs.writeFileSync(path.join(dir, 'orders.ts'), "const hidden = pgTable('hidden', {});\n");
      expect(() => readOwners(dir)).toThrow(/declare each table/);
      fs.rmSync(path.join(dir, 'orders.ts'));
      fs.writeFileSync(path.join(dir, 'money.ts'), "export const wallets = pgTable('wallet', {});\n");
      expect(() => readOwners(dir)).toThrow(/names no area/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
