import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AREAS } from '../app.ts';
import type { Area } from './area.ts';

const src = path.resolve(import.meta.dirname, '..');

describe('the app is a list of areas (issue 14 item 7)', () => {
  it('serves every <area>/<area>.plugin.ts, once', async () => {
    const pluginFiles = fs
      .readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((dir) =>
        fs
          .readdirSync(path.join(src, dir.name))
          .filter((file) => file.endsWith('.plugin.ts'))
          .map((file) => path.join(src, dir.name, file)),
      );
    const exported: Area[] = [];
    for (const file of pluginFiles) {
      const module = (await import(file)) as Record<string, unknown>;
      exported.push(...Object.values(module).filter((value): value is Area => typeof value === 'object' && value !== null && 'register' in value));
    }
    expect(exported.length).toBe(pluginFiles.length);
    expect(new Set(AREAS).size).toBe(AREAS.length);
    expect(AREAS.map((area) => area.name).sort()).toEqual(exported.map((area) => area.name).sort());
  });
});
