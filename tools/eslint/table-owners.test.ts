import { RuleTester } from 'eslint';
import { afterAll, describe, it } from 'vitest';
import tableOwners from './table-owners.js';

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
  ],
  invalid: [
    { filename: at('apps/server/src/checkout/checkouts.service.ts'), code: "import { ledgerEntries } from '../db/schema/index.ts';", errors: 1 },
    { filename: at('apps/server/src/payments/provider-events.service.ts'), code: "import { checkouts, orders } from '../db/schema/index.ts';", errors: 2 },
    { filename: at('apps/server/src/wallet/wallet.service.ts'), code: "import { productVariants } from '../db/schema/index.ts';", errors: 1 },
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
