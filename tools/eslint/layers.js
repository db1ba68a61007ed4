// Keeps imports flowing one way (DESIGN.md): domain -> sdk -> web; domain -> server;
// web features never import each other; shared web code never imports a feature
// (the router may lazily load feature pages).
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** The layer a file belongs to, from its path inside the repository. */
function layerOf(file) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  if (rel.startsWith('packages/domain/')) return { name: 'domain' };
  if (rel.startsWith('packages/sdk/')) return { name: 'sdk' };
  // Server tests are clients of the server: they may use the sdk, as sister products do.
  if (rel.startsWith('apps/server/') && (/\.test\.tsx?$/.test(rel) || rel.startsWith('apps/server/test/'))) return { name: 'server-test' };
  if (rel.startsWith('apps/server/')) return { name: 'server' };
  const feature = /^apps\/web\/src\/features\/([^/]+)\//.exec(rel);
  if (feature) return { name: 'web', feature: feature[1] };
  // The app's own tests (apps/web/src/app/*.test.ts) check how it composes the features, e.g.
  // that every live topic refreshes the features' queries: they may import every feature.
  if (rel.startsWith('apps/web/')) {
    return { name: 'web', shared: true, router: rel === 'apps/web/src/app/router.tsx', appTest: /^apps\/web\/src\/app\/[^/]+\.test\.tsx?$/.test(rel) };
  }
  return { name: 'other' };
}

const PACKAGE_LAYERS = {
  '@storefront/domain': 'domain',
  '@storefront/sdk': 'sdk',
  '@storefront/server': 'server',
  '@storefront/web': 'web',
};

const ALLOWED = {
  domain: ['domain'],
  sdk: ['domain', 'sdk'],
  server: ['domain', 'server'],
  'server-test': ['domain', 'sdk', 'server', 'server-test'],
  web: ['domain', 'sdk', 'web'],
};

function targetOf(specifier, file) {
  if (specifier.startsWith('.')) return layerOf(path.resolve(path.dirname(file), specifier));
  const pkg = Object.keys(PACKAGE_LAYERS).find((name) => specifier === name || specifier.startsWith(`${name}/`));
  return pkg ? { name: PACKAGE_LAYERS[pkg] } : undefined;
}

const rule = {
  meta: { type: 'problem', schema: [], messages: { layer: '{{from}} may not import {{to}} ({{why}}).' } },
  create(context) {
    const from = layerOf(context.filename);
    if (from.name === 'other') return {};
    function check(node, specifier, isDynamic) {
      if (typeof specifier !== 'string') return;
      const to = targetOf(specifier, context.filename);
      if (!to || to.name === 'other') return;
      const report = (why) => context.report({ node, messageId: 'layer', data: { from: from.feature ? `feature ${from.feature}` : from.name, to: specifier, why } });
      if (!ALLOWED[from.name].includes(to.name)) return report('imports flow domain -> sdk -> web and domain -> server');
      if (from.name === 'web' && to.feature) {
        if (from.feature && from.feature !== to.feature) return report('features never import each other');
        if (from.shared && !(from.router && isDynamic) && !from.appTest) return report('shared web code never imports a feature; the router loads pages lazily');
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value, false),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, false),
      ExportAllDeclaration: (node) => check(node, node.source.value, false),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, true),
    };
  },
};

// Only services touch the database (decision 026): the tables (db/schema) are imported by
// services, seeds, the db/ folder and tests. Routes, callable functions and jobs call a service.
const SCHEMA = /(^|\/)db\/schema(\/|\.ts$|$)/;
const DATA_FILE = /\.(service|seed)\.ts$/;
// Services under another name: parts split out of an area's service for size, and the
// adapters that hand our tables to a library (Better Auth, oidc-provider).
const DATA_MODULES = new Set([
  'apps/server/src/accounts/auth.ts',
  'apps/server/src/oidc/oidc.adapter.ts',
  'apps/server/src/oidc/oidc.clients.ts',
  'apps/server/src/oidc/oidc.keys.ts',
  'apps/server/src/service/service.tokens.ts',
  'apps/server/src/service/service.writes.ts',
  'apps/server/src/storage/storage.delivery.ts',
  'apps/server/src/storage/storage.sessions.ts',
  'apps/server/src/wallet/wallet.commands.ts',
  'apps/server/src/wallet/wallet.summary.ts',
]);

function mayImportSchema(file) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  if (!rel.startsWith('apps/server/')) return true;
  if (rel.startsWith('apps/server/src/db/') || rel.startsWith('apps/server/src/seed/') || rel.startsWith('apps/server/test/')) return true;
  return DATA_FILE.test(rel) || /\.test\.ts$/.test(rel) || DATA_MODULES.has(rel);
}

const schemaRule = {
  meta: { type: 'problem', schema: [], messages: { schema: "Only services touch the database: move this query into the area's *.service.ts and call it (decision 026)." } },
  create(context) {
    if (mayImportSchema(context.filename)) return {};
    function check(node, specifier) {
      if (typeof specifier === 'string' && specifier.startsWith('.') && SCHEMA.test(specifier)) context.report({ node, messageId: 'schema' });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { layers: rule, 'services-own-the-database': schemaRule } };
