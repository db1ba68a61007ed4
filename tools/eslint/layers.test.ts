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
