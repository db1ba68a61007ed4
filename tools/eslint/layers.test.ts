import { RuleTester } from 'eslint';
import { afterAll, describe, it } from 'vitest';
import layers from './layers.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });
const root = new URL('../..', import.meta.url).pathname;
const at = (file: string) => `${root}${file}`;

tester.run('storefront/layers', layers.rules.layers, {
  valid: [
    { filename: at('apps/web/src/features/shop/a.ts'), code: "import '@storefront/sdk/callable.ts'; import '../../ui/modal.tsx'; import './b.ts';" },
    { filename: at('apps/web/src/app/router.tsx'), code: "const p = import('../features/shop/components/shop-page.tsx');" },
    { filename: at('apps/server/src/app.ts'), code: "import '@storefront/domain/errors.ts';" },
    { filename: at('apps/server/src/x.test.ts'), code: "import '@storefront/sdk/callable.ts';" },
    { filename: at('packages/sdk/src/a.ts'), code: "import '@storefront/domain/errors.ts';" },
  ],
  invalid: [
    { filename: at('apps/web/src/features/cart/a.ts'), code: "import '../checkout/b.ts';", errors: 1 },
    { filename: at('apps/web/src/ui/modal.tsx'), code: "import '../features/cart/a.ts';", errors: 1 },
    { filename: at('apps/web/src/app/router.tsx'), code: "import '../features/shop/components/shop-page.tsx';", errors: 1 },
    { filename: at('packages/domain/src/a.ts'), code: "import '@storefront/sdk/callable.ts';", errors: 1 },
    { filename: at('packages/sdk/src/a.ts'), code: "import '@storefront/server/app.ts';", errors: 1 },
    { filename: at('apps/server/src/app.ts'), code: "import '@storefront/sdk/callable.ts';", errors: 1 },
    { filename: at('apps/web/src/main.tsx'), code: "import '../../server/src/app.ts';", errors: 1 },
    { filename: at('apps/server/src/app.ts'), code: "import './x.test.ts';", errors: 1 },
  ],
});

tester.run('storefront/services-own-the-database', layers.rules['services-own-the-database'], {
  valid: [
    { filename: at('apps/server/src/orders/orders.service.ts'), code: "import { orders } from '../db/schema/index.ts';" },
    { filename: at('apps/server/src/catalog/catalog.seed.ts'), code: "import { products } from '../db/schema/index.ts';" },
    { filename: at('apps/server/src/db/backup.ts'), code: "import * as schema from './schema/index.ts';" },
    { filename: at('apps/server/src/orders/orders.test.ts'), code: "import { orders } from '../db/schema/index.ts';" },
    { filename: at('apps/server/test/access-matrix.test.ts'), code: "import { users } from '../src/db/schema/index.ts';" },
    { filename: at('apps/server/src/orders/orders.functions.ts'), code: "import { listOrdersOf } from './orders.service.ts';" },
  ],
  invalid: [
    { filename: at('apps/server/src/orders/orders.functions.ts'), code: "import { orders } from '../db/schema/index.ts';", errors: 1 },
    { filename: at('apps/server/src/payments/payments.routes.ts'), code: "import { checkouts } from '../db/schema/checkout.ts';", errors: 1 },
    { filename: at('apps/server/src/app.ts'), code: "export { users } from './db/schema/index.ts';", errors: 1 },
    { filename: at('apps/server/src/mail/mailer.ts'), code: "const s = import('../db/schema/index.ts');", errors: 1 },
  ],
});
