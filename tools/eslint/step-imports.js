// A step file (`*.step.ts`, issue 34) lives in its flow's area and calls the service of ONE
// owning area: refund-wallet.step.ts calls wallet/, refund-gift-cards.step.ts giftcards/.
// Besides that area it may import its own folder (the flow's rows and helpers), the domain
// package, the shell (db/, http/, jobs/, mail/, config.ts, errors.ts) and any type.
// A step that reaches a second area is two steps; the exceptions say why they are not.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const SERVER = 'apps/server/src/';
const SHELL = new Set(['db', 'http', 'jobs', 'mail', 'config.ts', 'errors.ts']);

/** Step files allowed a second owning area, and why. */
export const EXCEPTIONS = {
  // Releasing a checkout's holds is the list of the undos of its holds (stock, code uses, wallet credit), run as one.
  'apps/server/src/checkout/release.step.ts': ['catalog', 'discounts', 'wallet'],
  // A code's category scope is read from the catalog before the code's use is taken from discounts/.
  'apps/server/src/checkout/discount.step.ts': ['catalog', 'discounts'],
  // The ledger is handed the order's figures as the orders' read model reads them (it reads no order itself, decision 075).
  'apps/server/src/checkout/earnings.step.ts': ['orders', 'royalties'],
};

const rel = (file) => path.relative(root, file).split(path.sep).join('/');

/** The folder (or root file) under apps/server/src a path lies in, or undefined outside it. */
function folderOf(relPath) {
  if (!relPath.startsWith(SERVER)) return undefined;
  return relPath.slice(SERVER.length).split('/')[0];
}

const typeOnly = (node) => node.importKind === 'type' || (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));

const rule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      area: 'A step calls one owning area: this file also imports {{area}} ({{specifier}}) besides {{owner}}. Split the step, or list it in tools/eslint/step-imports.js with why.',
    },
  },
  create(context) {
    const file = rel(context.filename);
    if (!file.startsWith(SERVER) || !file.endsWith('.step.ts')) return {};
    const own = folderOf(file);
    const allowed = EXCEPTIONS[file];
    let owner;
    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.') || typeOnly(node)) return;
      const area = folderOf(rel(path.resolve(path.dirname(context.filename), specifier)));
      if (!area || area === own || SHELL.has(area)) return;
      if (allowed?.includes(area)) return;
      if (owner === undefined) owner = area;
      if (area !== owner) context.report({ node, messageId: 'area', data: { area, specifier, owner } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { 'step-imports-one-area': rule } };
