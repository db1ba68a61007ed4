import { RuleTester } from 'eslint';
import { afterAll, describe, it } from 'vitest';
import fileNames from './file-names.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });
const root = new URL('../..', import.meta.url).pathname;
const at = (file: string) => `${root}${file}`;

tester.run('storefront/file-names', fileNames.rules['file-names'], {
  valid: [
    { filename: at('apps/web/src/features/checkout/components/checkout-page.tsx'), code: 'export {};' },
    { filename: at('apps/server/test/reliability/autocannon.d.ts'), code: 'export {};' },
    { filename: at('apps/server/src/orders/orders.functions.ts'), code: "defineFunction('listOrders', async () => ({}));" },
    { filename: at('apps/server/src/orders/desk.routes.ts'), code: "app.get('/api/desk', async () => ({}));" },
    { filename: at('apps/server/src/app.ts'), code: "app.get('/healthz', async () => ({}));" },
    { filename: at('apps/server/src/orders/orders.plugin.ts'), code: "defineArea('orders', async () => {});" },
    { filename: at('apps/server/src/orders/orders.test.ts'), code: "defineFunction('x', async () => 1); app.get('/x', () => 1);" },
  ],
  invalid: [
    { filename: at('apps/web/src/features/checkout/components/CheckoutPage.tsx'), code: 'export {};', errors: 1 },
    { filename: at('apps/web/src/lib/query_keys.ts'), code: 'export {};', errors: 1 },
    { filename: at('apps/server/src/accounts/addresses.service.ts'), code: "defineFunction('listSavedAddresses', async () => ({}));", errors: 1 },
    { filename: at('apps/server/src/orders/orders.service.ts'), code: "app.post('/api/x', async () => ({}));", errors: 1 },
    { filename: at('apps/server/src/orders/orders.functions.ts'), code: "defineArea('orders', async () => {});", errors: 1 },
  ],
});
