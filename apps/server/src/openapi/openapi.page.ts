import type { OpenApiDocument, OpenApiOperation } from '@storefront/domain/openapi.ts';
import { escapeHtml, htmlPage } from '../http/html.ts';

/**
 * The browsable reference (decision 048): a server-rendered listing of the OpenAPI document,
 * made from the document itself so the two cannot differ. No script and nothing from
 * another origin: it lives under the shop's strict Content-Security-Policy as it is.
 */

const STYLE =
  'body{font-family:system-ui,Helvetica,Arial,sans-serif;max-width:960px;margin:0 auto;padding:24px;line-height:1.45;color:#111}' +
  'code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}' +
  'pre{background:#f4f4f4;padding:8px;overflow:auto;max-height:360px}' +
  'section{border-top:1px solid #ddd;padding:8px 0}' +
  '.method{font-weight:bold;margin-right:8px}.badge{background:#eee;border-radius:4px;padding:1px 6px;margin-left:8px;font-size:12px}' +
  '.deprecated{background:#fde2e2;color:#8a1111}nav li{display:inline-block;margin-right:12px}';

function schemaBlock(label: string, schema: unknown): string {
  return `<details><summary>${escapeHtml(label)}</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;
}

interface Content {
  content?: Record<string, { schema?: unknown }>;
}

function operationSection(path: string, method: string, operation: OpenApiOperation): string {
  const request = (operation.requestBody as Content | undefined)?.content?.['application/json']?.schema;
  const responses = (operation.responses ?? {}) as Record<string, Content | { $ref: string }>;
  const ok = (responses['200'] as Content | undefined)?.content?.['application/json']?.schema;
  const errors = Object.keys(responses).filter((status) => status !== '200');
  const parameters = (operation.parameters as { name: string; in: string; description?: string }[] | undefined) ?? [];
  const deprecated = operation.deprecated ? '<span class="badge deprecated">deprecated</span>' : '';
  return (
    `<section id="${escapeHtml(operation.operationId)}"><h3><span class="method">${escapeHtml(method.toUpperCase())}</span><code>${escapeHtml(path)}</code>` +
    `<span class="badge">${escapeHtml(operation['x-access'])}</span>${deprecated}</h3>` +
    `<p>${escapeHtml(String(operation.description ?? operation.summary ?? ''))}</p>` +
    (parameters.length > 0
      ? `<ul>${parameters.map((p) => `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)})${p.description ? `: ${escapeHtml(p.description)}` : ''}</li>`).join('')}</ul>`
      : '') +
    (request === undefined ? '' : schemaBlock('Request body', request)) +
    (ok === undefined ? '' : schemaBlock('Answer (200)', ok)) +
    `<p>Errors: ${errors.map((status) => `<code>${escapeHtml(status)}</code>`).join(' ')} (see <a href="#errors">errors</a>)</p></section>`
  );
}

export function referencePage(document: OpenApiDocument): string {
  const info = document.info as { title: string; version: string; description?: string };
  const tags = (document.tags as { name: string; description?: string }[] | undefined) ?? [];
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation, tag: (operation.tags as string[] | undefined)?.[0] ?? '' })),
  );
  const groups = tags
    .map((tag) => {
      const inTag = operations.filter((entry) => entry.tag === tag.name);
      if (inTag.length === 0) return '';
      return `<h2 id="${escapeHtml(tag.name.replaceAll(' ', '-'))}">${escapeHtml(tag.name)}</h2><p>${escapeHtml(tag.description ?? '')}</p>${inTag
        .map((entry) => operationSection(entry.path, entry.method, entry.operation))
        .join('')}`;
    })
    .join('');
  const components = document.components as { schemas: { Error: unknown }; responses: Record<string, { description: string }> };
  const errorList = Object.entries(components.responses)
    .map(([name, response]) => `<li><code>${escapeHtml(name.replace('Error', ''))}</code>: ${escapeHtml(response.description)}</li>`)
    .join('');
  const body =
    `<style>${STYLE}</style><main><h1>${escapeHtml(info.title)} <span class="badge">version ${escapeHtml(info.version)}</span></h1>` +
    `<p>${escapeHtml(info.description ?? '')}</p>` +
    `<p>The machine-readable document: <a href="/api/openapi.json"><code>/api/openapi.json</code></a> (OpenAPI ${escapeHtml(document.openapi)}).</p>` +
    `<nav><ul>${tags.map((tag) => `<li><a href="#${escapeHtml(tag.name.replaceAll(' ', '-'))}">${escapeHtml(tag.name)}</a></li>`).join('')}<li><a href="#errors">errors</a></li></ul></nav>` +
    groups +
    `<h2 id="errors">Errors</h2><p>Every error answer has this body, with the request's id also in the <code>X-Request-Id</code> header:</p>` +
    `<pre>${escapeHtml(JSON.stringify(components.schemas.Error, null, 2))}</pre><ul>${errorList}</ul></main>`;
  return htmlPage(`${info.title} reference`, body);
}
