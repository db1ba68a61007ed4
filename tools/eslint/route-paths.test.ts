import { RuleTester } from 'eslint';
import { afterAll, describe, it } from 'vitest';
import routePaths from './route-paths.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module', parserOptions: { ecmaFeatures: { jsx: true } } } });
const root = new URL('../..', import.meta.url).pathname;
const at = (file: string) => `${root}${file}`;

tester.run('storefront/route-paths', routePaths.rules['route-paths'], {
  valid: [
    { filename: at('apps/web/src/app/layout/header.tsx'), code: '<Link to={paths.shop}>SHOP</Link>;' },
    { filename: at('apps/web/src/lib/paths.ts'), code: "export const paths = { shop: '/shop' };" },
    { filename: at('apps/web/src/lib/api-client.ts'), code: "fetch('/api/shop'); fetch('/fn/getWallet'); const v = '/shopping';" },
    { filename: at('apps/web/src/features/catalog/x.test.ts'), code: "expect(url).toBe('/shop');" },
    { filename: at('apps/server/src/app.ts'), code: "const page = '/shop';" },
  ],
  invalid: [
    { filename: at('apps/web/src/app/layout/header.tsx'), code: '<Link to="/shop">SHOP</Link>;', errors: 1 },
    { filename: at('apps/web/src/features/cart/a.tsx'), code: "navigate('/login', { state: { from: '/checkout' } });", errors: 2 },
    { filename: at('apps/web/src/features/catalog/a.tsx'), code: 'const to = `/product/${id}`;', errors: 1 },
    { filename: at('apps/web/src/features/wallet/a.tsx'), code: "const to = '/my-orders#order-1';", errors: 1 },
    // The console's tabs and an opened order (issue 29 item 6): paths.releaseTab / paths.releaseOrder.
    { filename: at('apps/web/src/features/admin/a.tsx'), code: "navigate('/release/sales');", errors: 1 },
    { filename: at('apps/web/src/features/admin/b.tsx'), code: 'const to = `/release/orders/${id}`;', errors: 1 },
  ],
});
