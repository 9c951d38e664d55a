/**
 * `contract-first lint`: the project's documents with the project's rules, and a document that is
 * not one of them with the package's rules alone.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const COMMAND = fileURLToPath(new URL('../../src/command.ts', import.meta.url));
const MUSEUM = fileURLToPath(new URL('../fixtures/third-party/redocly-museum.yaml', import.meta.url));
const RULES = fileURLToPath(new URL('../../lint/contract-first.yaml', import.meta.url));
/** tsx, as the package resolves it: the project's folder has no node_modules. */
const TSX = import.meta.resolve('tsx');

let project: string;
beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'lint-command-'));
  await copyFile(MUSEUM, path.join(project, 'museum.yaml'));
  await copyFile(MUSEUM, path.join(project, 'other.yaml'));
  // A house rule the Museum's document breaks: every operation's summary ends with a full stop.
  await writeFile(
    path.join(project, 'redocly.yaml'),
    `apis:\n  museum:\n    root: museum.yaml\n    output: generated/openapi.json\nextends:\n  - ${RULES}\nrules:\n  rule/summary-full-stop:\n    subject: { type: Operation, property: summary }\n    assertions: { pattern: '\\.$' }\n    severity: error\n`,
  );
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

function lint(args: readonly string[]): Promise<{ code: number; output: string }> {
  const program = `import(${JSON.stringify(COMMAND)}).then((m) => m.runCommand(process.argv.slice(1)))`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, '--input-type=module', '-e', program, 'lint', ...args],
      { cwd: project, env: { ...process.env, INIT_CWD: project, NO_COLOR: '1' } },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}

describe('contract-first lint', () => {
  it("lints the project's documents with the project's rules", async () => {
    const result = await lint([]);
    expect(result.output).toContain('rule/summary-full-stop');
    expect(result.code).toBe(1);
  }, 60_000);

  it("lints a document named that is one of the project's with the project's rules", async () => {
    const result = await lint(['museum.yaml']);
    expect(result.output).toContain('rule/summary-full-stop');
    expect(result.code).toBe(1);
  }, 60_000);

  it("lints any other document with the package's rules alone", async () => {
    const result = await lint(['other.yaml']);
    expect(result.output).not.toContain('rule/summary-full-stop');
    expect(result.output).toContain('contract-first/operation-401-when-secured');
    expect(result.code, result.output).toBe(0);
  }, 60_000);
});
