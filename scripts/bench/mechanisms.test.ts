import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MECHANISMS, MECHANISM_NAMES, describeOff, packageOfPatch } from './mechanisms.js';
import { PROJECT_ROOT } from './processes.js';

describe('the mechanisms --without turns off', () => {
  it('say how each is turned off', () => {
    expect(describeOff(MECHANISMS['kept-reads'])).toBe('KEPT_READS_MB=0');
    expect(describeOff(MECHANISMS.none)).toBe('the same settings');
    expect(describeOff(MECHANISMS['eov-003'])).toMatch(/copy of the project with express-openapi-validator\+5\.6\.2\+003\+.*\.patch reversed/);
    for (const name of MECHANISM_NAMES) expect(MECHANISMS[name].name).toBe(name);
  });

  it('reverse a patch of the project, in the package it changes', async () => {
    const off = MECHANISMS['eov-003'].off;
    if (!('reversePatch' in off)) throw new Error('eov-003 is not turned off by a patch');
    expect(packageOfPatch(await readFile(`${PROJECT_ROOT}${off.reversePatch}`, 'utf8'))).toBe('express-openapi-validator');
  });

  it('find the package of a scoped one too', () => {
    expect(packageOfPatch('diff --git a/x b/x\n--- a/node_modules/@electric-sql/pglite/dist/chunk.js\n+++ b/node_modules/@electric-sql/pglite/dist/chunk.js\n')).toBe(
      '@electric-sql/pglite',
    );
    expect(() => packageOfPatch('--- a/server/app.ts\n')).toThrow(/node_modules/);
  });
});
