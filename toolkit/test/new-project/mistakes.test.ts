/**
 * `contract-first new` on a document with mistakes that Redocly reports as errors and the
 * generator works around (test/fixtures/generator/mistakes.yaml: a 3.0 `nullable`, an unknown property, …): the
 * project's redocly.yaml makes those rules warnings, listing each finding, and its first `npm test`
 * passes.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lintDocument } from '../../src/lint/lint-document.js';
import { createProject, type Project } from './project.js';

const MISTAKES = fileURLToPath(new URL('../fixtures/generator/mistakes.yaml', import.meta.url));

let project: Project | undefined;
afterAll(async () => {
  await project?.remove();
});

describe('contract-first new on a document with mistakes', () => {
  it("makes each rule that finds an error a warning of the project, listed, and the project's npm test passes", async () => {
    const errors = (await lintDocument(MISTAKES)).filter((finding) => finding.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    project = await createProject(MISTAKES, 'mistakes');
    const config = await project.read('redocly.yaml');
    for (const rule of new Set(errors.map((finding) => finding.ruleId)))
      expect(config).toMatch(new RegExp(`^  ${rule}: warn$`, 'm'));
    for (const finding of errors) expect(config).toContain(finding.pointer);
    expect(project.printed.join('\n')).toContain("the new project's redocly.yaml makes");

    const installed = await project.npm(['ci', '--prefer-offline', '--no-audit', '--no-fund']);
    expect(installed.code, installed.output).toBe(0);
    const tested = await project.npm(['test']);
    expect(tested.code, tested.output).toBe(0);
  }, 300_000);
});
