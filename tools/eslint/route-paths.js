// Page addresses come from apps/web/src/lib/paths.ts (issue 14 item 6, decision 036): a
// page path written as a string anywhere else in the web app is refused, so renaming a
// page is one edit there. The pages are read from paths.ts itself.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const PATHS_FILE = 'apps/web/src/lib/paths.ts';

// Screens another branch is rewriting at the time of decision 036 (the product form and the
// order list): convert them to `paths` when that work has landed, then empty this list.
const NOT_YET = new Set([]);

function pageSegments() {
  const source = fs.readFileSync(path.join(root, PATHS_FILE), 'utf8');
  return [...new Set([...source.matchAll(/['`]\/([a-z0-9-]+)/g)].map((match) => match[1]))];
}

let pagePattern;
function isPagePath(text) {
  pagePattern ??= new RegExp(`^/(${pageSegments().join('|')})([/#?]|$)`);
  return pagePattern.test(text);
}

const rule = {
  meta: {
    type: 'suggestion',
    schema: [],
    messages: { path: 'Write the page address as `paths.…` from lib/paths.ts, not "{{text}}".' },
  },
  create(context) {
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    if (!rel.startsWith('apps/web/src/') || rel === PATHS_FILE || NOT_YET.has(rel) || /\.test\.tsx?$/.test(rel)) return {};
    const report = (node, text) => context.report({ node, messageId: 'path', data: { text } });
    return {
      Literal(node) {
        if (typeof node.value === 'string' && isPagePath(node.value)) report(node, node.value);
      },
      TemplateLiteral(node) {
        const head = node.quasis[0]?.value.cooked ?? '';
        if (isPagePath(head)) report(node, head);
      },
    };
  },
};

export default { rules: { 'route-paths': rule } };
