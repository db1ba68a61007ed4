// File names say what a file holds (STYLE.md rule 1, decision 036): kebab-case everywhere,
// and on the server the role suffix: callable functions in `*.functions.ts`, HTTP routes in
// `*.routes.ts` (app.ts and the area plugins register them), areas in `*.plugin.ts`.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** `orders.service.ts`, `shop-page.tsx`, `autocannon.d.ts`: lower-case words joined by '-' and '.'. */
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.(ts|tsx|js|mjs|cjs)$/;
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);

function serverRole(rel) {
  if (!rel.startsWith('apps/server/src/') || /\.test\.ts$/.test(rel)) return undefined;
  return path.posix.basename(rel);
}

const rule = {
  meta: {
    type: 'suggestion',
    schema: [],
    messages: {
      kebab: 'File names are kebab-case ({{name}}): lower-case words joined by "-", roles by "." (orders.service.ts).',
      role: '{{what}} belongs in a `{{suffix}}` file, not {{name}}.',
    },
  },
  create(context) {
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    if (rel.startsWith('..')) return {};
    const name = path.posix.basename(rel);
    return {
      Program(node) {
        if (!KEBAB.test(name)) context.report({ node, messageId: 'kebab', data: { name } });
      },
      CallExpression(node) {
        const base = serverRole(rel);
        if (!base) return;
        const callee = node.callee;
        const report = (what, suffix) => context.report({ node, messageId: 'role', data: { what, suffix, name: base } });
        if (callee.type === 'Identifier' && callee.name === 'defineFunction' && !base.endsWith('.functions.ts')) report('A callable function', '*.functions.ts');
        if (callee.type === 'Identifier' && callee.name === 'defineArea' && !base.endsWith('.plugin.ts')) report('An area', '*.plugin.ts');
        const isRoute =
          callee.type === 'MemberExpression' &&
          callee.object.type === 'Identifier' &&
          callee.object.name === 'app' &&
          callee.property.type === 'Identifier' &&
          ROUTE_METHODS.has(callee.property.name);
        if (isRoute && !base.endsWith('.routes.ts') && base !== 'app.ts') report('An HTTP route', '*.routes.ts');
      },
    };
  },
};

export default { rules: { 'file-names': rule } };
