import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One accessibility problem axe found: its rule, how bad, and the elements it names. */
export interface AxeProblem {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The serious and critical problems axe-core finds on the page as it is now (WCAG 2 A and AA
 * rules and best practices), for `expect(...).toEqual([])`: a failure names each rule and element.
 */
export async function seriousAxeProblems(page: Page): Promise<AxeProblem[]> {
  // Evaluated, not added as a <script>: the shop's Content-Security-Policy refuses inline scripts.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
  });
}
