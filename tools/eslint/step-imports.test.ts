import { RuleTester } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import { afterAll, describe, it } from 'vitest';
import steps from './step-imports.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { parser: tsParser, ecmaVersion: 2024, sourceType: 'module' } });
const root = new URL('../..', import.meta.url).pathname;
const at = (file: string) => `${root}${file}`;

tester.run('storefront/step-imports-one-area', steps.rules['step-imports-one-area'], {
  valid: [
    {
      filename: at('apps/server/src/orders/refund-wallet.step.ts'),
      code: "import type { Tx } from '../db/transaction.ts'; import { credit } from '../wallet/wallet.service.ts'; import { itemsAtPositions } from './refunds.service.ts'; import { x } from '@storefront/domain/refunds.ts'; import { AppError } from '../errors.ts';",
    },
    // Types from any area are free.
    {
      filename: at('apps/server/src/orders/refund-card.step.ts'),
      code: "import { credit } from '../wallet/wallet.service.ts'; import type { TaxCalculator } from '../shipping/stripe-tax.ts';",
    },
    { filename: at('apps/server/src/orders/a.step.ts'), code: "import { credit } from '../wallet/wallet.service.ts'; import { type Hold } from '../catalog/variants.service.ts';" },
    // Not a step: the rule does not apply.
    {
      filename: at('apps/server/src/orders/refund.flow.ts'),
      code: "import { credit } from '../wallet/wallet.service.ts'; import { revokeForOrder } from '../digital/sales.service.ts';",
    },
    // A listed exception.
    {
      filename: at('apps/server/src/checkout/release.step.ts'),
      code: "import { releaseStock } from '../catalog/variants.service.ts'; import { release } from '../wallet/wallet.service.ts';",
    },
  ],
  invalid: [
    // The fixture: a step that calls two areas' services.
    {
      filename: at('apps/server/src/orders/refund-wallet.step.ts'),
      code: "import { credit } from '../wallet/wallet.service.ts'; import { revokeForOrder } from '../digital/sales.service.ts';",
      errors: [{ messageId: 'area' }],
    },
    {
      filename: at('apps/server/src/checkout/pricing.step.ts'),
      code: "import { a } from '../shipping/shipping.service.ts'; export { b } from '../orders/orders.service.ts';",
      errors: 1,
    },
  ],
});
