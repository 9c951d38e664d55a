/**
 * `contract-first lint [FILE…]`: Redocly's lint of the project's documents (every `apis:` entry
 * of redocly.yaml, with the rules that file sets), or of the files named. A file that is one of the
 * project's documents is linted with the project's rules; any other file with the toolkit's rules
 * alone (lint/contract-first.yaml and Redocly's `minimal`), since the project's conventions are
 * written for its own documents.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseFlags, runAsMain, type Command } from './cli.js';
import { CONFIG_FILE, findProjectRoot, readProjectConfig } from './config.js';
import { CONTRACT_FIRST_CONFIG } from './lint/lint-document.js';
import { meaningfulLines, runRedocly } from './redocly.js';

export const USAGE = `Usage: contract-first lint [FILE…] [--format stylish|codeframe|json]

  (no FILE)   every document of the project (apis: in redocly.yaml), with the rules it sets
  FILE        a document: one of the project's is linted with the project's rules, any other
              with the toolkit's rules alone
  --format    Redocly's output format (default stylish)
  --help      show this text

Exit status: 0 when there is no error (warnings are printed), 1 when there is one.`;

/** Whether `file` (absolute) is the root of one of the project's documents. */
function isProjectDocument(root: string, file: string): boolean {
  if (!existsSync(path.join(root, CONFIG_FILE))) return false;
  try {
    return readProjectConfig(root).apis.some((api) => path.resolve(api.root) === file);
  } catch {
    return false;
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const files = argv.filter((arg) => !arg.startsWith('-'));
  const flags = argv.filter((arg) => arg.startsWith('-'));
  const values = parseFlags(flags, { format: { type: 'string' }, help: { type: 'boolean' } }, USAGE);
  if (typeof values === 'number') return values;
  const root = findProjectRoot();
  // Paths on the command line are read from where it was typed (npm runs scripts at the root).
  const cwd = process.env['INIT_CWD'] ?? process.cwd();
  const format = ['--format', values.format ?? 'stylish', '--max-problems', '10000'];
  const runs: string[][] = [];
  if (files.length === 0) runs.push(['lint', ...format]);
  for (const file of files.map((name) => path.resolve(cwd, name))) {
    runs.push(
      isProjectDocument(root, file)
        ? ['lint', ...format, file]
        : ['lint', '--config', CONTRACT_FIRST_CONFIG, ...format, file],
    );
  }
  let code = 0;
  for (const args of runs) {
    const result = await runRedocly(args, { cwd: root });
    for (const line of meaningfulLines(result.stdout)) console.log(line);
    for (const line of meaningfulLines(result.stderr)) console.error(line);
    code = Math.max(code, result.code);
  }
  return code;
}

export const COMMAND: Command = { run: main };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
